import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { cdpSettingsSchema, REGION_BASE_URLS, type Region } from './catalog/params.js';
import { pastRequests } from './catalog/past-requests.generated.js';
import { trackingTools } from './catalog/tracking.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'CdpPipelinesApi';

export const cdpPipelinesTools = trackingTools;

/** The CdpPipelinesApi plugin; `settings.region` (`us` | `eu`) picks the base URL, `baseUrl` overrides it. */
export function createCdpPipelinesPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      contractVersion: '2.6',
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      vendor: 'Customer.io',
      // Its workflows, ids, paging and pitfalls, for agents (served as an MCP skill).
      skill: new URL('../skill/customerio-data-pipelines/', import.meta.url),
      // Questions people asked about the API that its tools answer: the tool search leans on them.
      pastRequests,
      servers: { default: REGION_BASE_URLS.us },
      tools: cdpPipelinesTools,
      settingsSchema: cdpSettingsSchema,
      resolveServers(settings, servers) {
        const region = settings.region ?? 'us';
        // The host checks configured settings against the schema first; this guards the
        // options an embedder binds in code.
        if (typeof region !== 'string' || !(region in REGION_BASE_URLS)) {
          throw new Error(
            `toolSets.${TOOL_SET}.settings.region must be "us" or "eu", not ${JSON.stringify(region)}.`,
          );
        }
        return { ...servers, default: REGION_BASE_URLS[region as Region] };
      },
    },
    options,
  );
}

export const cdpPipelinesPlugin: ToolPlugin = createCdpPipelinesPlugin();
