export {
  cdpPipelinesPlugin as default,
  cdpPipelinesPlugin,
  cdpPipelinesTools,
  createCdpPipelinesPlugin,
  REGION_BASE_URLS,
  type Region,
  TOOL_SET,
} from './plugin.js';
