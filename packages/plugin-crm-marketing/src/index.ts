export { HUBSPOT_OAUTH } from './catalog/auth.js';
export {
  createCrmMarketingPlugin,
  crmMarketingPlugin as default,
  crmMarketingPlugin,
  crmMarketingTools,
  DEFAULT_BASE_URL,
  TOOL_SET,
} from './plugin.js';
