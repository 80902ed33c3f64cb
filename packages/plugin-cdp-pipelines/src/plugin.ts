import { createRequire } from 'node:module';
import { defineToolSetPlugin, type PluginOptions, type ToolPlugin } from '@toolhost/core';
import { trackingTools } from './catalog/tracking.js';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const TOOL_SET = 'CdpPipelinesApi';

/** Customer.io Data Pipelines base URL per account region. */
export const REGION_BASE_URLS = {
  us: 'https://cdp.customer.io/v1',
  eu: 'https://cdp-eu.customer.io/v1',
} as const;

export type Region = keyof typeof REGION_BASE_URLS;

export const cdpPipelinesTools = trackingTools;

/** The CdpPipelinesApi plugin; `settings.region` (`us` | `eu`) picks the base URL, `baseUrl` overrides it. */
export function createCdpPipelinesPlugin(options: PluginOptions = {}): ToolPlugin {
  return defineToolSetPlugin(
    {
      name: pkg.name,
      version: pkg.version,
      toolSet: TOOL_SET,
      servers: { default: REGION_BASE_URLS.us },
      tools: cdpPipelinesTools,
      resolveServers(settings, servers) {
        const region = settings.region ?? 'us';
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
