import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { sequenceTools } from './catalog/sequences.js';
import { workflowTools } from './catalog/workflows.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'CrmAutomationApi';
export const DEFAULT_BASE_URL = 'https://api.hubapi.com';

/** HubSpot's OAuth endpoints, the defaults for `crm-auth-provider` (overridable in host config). */
export const HUBSPOT_OAUTH = {
  authorizeUrl: 'https://app.hubspot.com/oauth/authorize',
  tokenUrl: 'https://api.hubapi.com/oauth/v1/token',
  clientAuth: 'post',
} as const;

export const crmAutomationTools = [...workflowTools, ...sequenceTools];

/** The CrmAutomationApi plugin; `settings.userId` is the HubSpot user the sequence tools act as. */
export function createCrmAutomationPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      servers: { default: DEFAULT_BASE_URL },
      tools: crmAutomationTools,
      oauth: { 'crm-auth-provider': HUBSPOT_OAUTH },
    },
    options,
  );
}

export const crmAutomationPlugin: ToolPlugin = createCrmAutomationPlugin();
