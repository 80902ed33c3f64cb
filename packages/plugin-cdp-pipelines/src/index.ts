export { REGION_BASE_URLS, type Region } from './catalog/params.js';
export {
  cdpPipelinesPlugin as default,
  cdpPipelinesPlugin,
  cdpPipelinesTools,
  createCdpPipelinesPlugin,
  TOOL_SET,
} from './plugin.js';
