import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { CRM_AUTH_PROVIDER, HUBSPOT_OAUTH, HUBSPOT_TRAFFIC } from './catalog/auth.js';
import { eventCompletionTools } from './catalog/event-completions.js';
import { eventDefinitionTools } from './catalog/event-definitions.js';
import { pastRequests } from './catalog/past-requests.generated.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'CrmEventsApi';
export const DEFAULT_BASE_URL = 'https://api.hubapi.com';

export const crmEventsTools = [...eventCompletionTools, ...eventDefinitionTools];

/** The CrmEventsApi plugin with options bound (e.g. a base URL), for embedders. */
export function createCrmEventsPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      contractVersion: '2.6',
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      vendor: 'HubSpot',
      // Its workflows, ids, paging and pitfalls, for agents (served as an MCP skill).
      skill: new URL('../skill/hubspot-custom-events/', import.meta.url),
      // Questions people asked about the API that its tools answer: the tool search leans on them.
      pastRequests,
      servers: { default: DEFAULT_BASE_URL },
      tools: crmEventsTools,
      oauth: { [CRM_AUTH_PROVIDER]: HUBSPOT_OAUTH },
      traffic: HUBSPOT_TRAFFIC,
      settingsSchema: { type: 'object', additionalProperties: false, properties: {} },
    },
    options,
  );
}

export const crmEventsPlugin: ToolPlugin = createCrmEventsPlugin();
