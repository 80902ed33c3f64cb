import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { CRM_AUTH_PROVIDER, HUBSPOT_OAUTH, HUBSPOT_TRAFFIC } from './catalog/auth.js';
import { automationSettingsSchema } from './catalog/params.js';
import { pastRequests } from './catalog/past-requests.generated.js';
import { sequenceTools } from './catalog/sequences.js';
import { workflowTools } from './catalog/workflows.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'CrmAutomationApi';
export const DEFAULT_BASE_URL = 'https://api.hubapi.com';

export const crmAutomationTools = [...workflowTools, ...sequenceTools];

/** The CrmAutomationApi plugin; `settings.userId` is the HubSpot user the sequence tools act as. */
export function createCrmAutomationPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      contractVersion: '2.6',
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      vendor: 'HubSpot',
      // Its workflows, ids, paging and pitfalls, for agents (served as an MCP skill).
      skill: new URL('../skill/hubspot-automation/', import.meta.url),
      // Questions people asked about the API that its tools answer: the tool search leans on them.
      pastRequests,
      servers: { default: DEFAULT_BASE_URL },
      tools: crmAutomationTools,
      oauth: { [CRM_AUTH_PROVIDER]: HUBSPOT_OAUTH },
      traffic: HUBSPOT_TRAFFIC,
      settingsSchema: automationSettingsSchema,
    },
    options,
  );
}

export const crmAutomationPlugin: ToolPlugin = createCrmAutomationPlugin();
