import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { AIRTABLE_OAUTH, GRID_AUTH_PROVIDER } from './catalog/auth.js';
import { baseTools } from './catalog/bases.js';
import { enterpriseTools } from './catalog/enterprise.js';
import { pastRequests } from './catalog/past-requests.generated.js';
import { recordTools } from './catalog/records.js';
import { schemaTools } from './catalog/schema.js';
import { scimTools } from './catalog/scim.js';
import { webhookTools } from './catalog/webhooks.js';
import { workspaceTools } from './catalog/workspaces.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'GridApi';

/** Airtable's hosts: the Web API, SCIM provisioning, and attachment uploads. Each overridable. */
export const DEFAULT_SERVERS = {
  default: 'https://api.airtable.com/v0',
  scim: 'https://airtable.com/scim/v2',
  content: 'https://content.airtable.com/v0',
} as const;

export const gridTools = [
  ...scimTools,
  ...webhookTools,
  ...baseTools,
  ...schemaTools,
  ...enterpriseTools,
  ...workspaceTools,
  ...recordTools,
];

/** The GridApi plugin; `baseUrls.scim` / `baseUrls.content` override the other hosts. */
export function createGridPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      contractVersion: '2.6',
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      vendor: 'Airtable',
      // Its workflows, ids, paging and pitfalls, for agents (served as an MCP skill).
      skill: new URL('../skill/airtable-web-api/', import.meta.url),
      // Questions people asked about the API that its tools answer: the tool search leans on them.
      pastRequests,
      servers: DEFAULT_SERVERS,
      tools: gridTools,
      oauth: { [GRID_AUTH_PROVIDER]: AIRTABLE_OAUTH },
      // Airtable allows 5 requests per second per base and answers 429 (then a 30 s pause) beyond it.
      traffic: {
        pacing: { key: 'baseId', requestsPerSecond: 5 },
        retryOnRateLimit: { defaultWaitSeconds: 30, maxWaitSeconds: 30 },
      },
      settingsSchema: { type: 'object', additionalProperties: false, properties: {} },
    },
    options,
  );
}

export const gridPlugin: ToolPlugin = createGridPlugin();
