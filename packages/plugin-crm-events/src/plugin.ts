import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { eventCompletionTools } from './catalog/event-completions.js';
import { eventDefinitionTools } from './catalog/event-definitions.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'CrmEventsApi';
export const DEFAULT_BASE_URL = 'https://api.hubapi.com';

export const crmEventsTools = [...eventCompletionTools, ...eventDefinitionTools];

/** HubSpot's OAuth endpoints, the defaults for `crm-auth-provider` (overridable in host config). */
export const HUBSPOT_OAUTH = {
  authorizeUrl: 'https://app.hubspot.com/oauth/authorize',
  tokenUrl: 'https://api.hubapi.com/oauth/v1/token',
  clientAuth: 'post',
} as const;

/** The CrmEventsApi plugin with options bound (e.g. a base URL), for embedders. */
export function createCrmEventsPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      servers: { default: DEFAULT_BASE_URL },
      tools: crmEventsTools,
      oauth: { 'crm-auth-provider': HUBSPOT_OAUTH },
    },
    options,
  );
}

export const crmEventsPlugin: ToolPlugin = createCrmEventsPlugin();
