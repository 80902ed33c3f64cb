export {
  createCrmMarketingPlugin,
  crmMarketingPlugin as default,
  crmMarketingPlugin,
  crmMarketingTools,
  DEFAULT_BASE_URL,
  HUBSPOT_OAUTH,
  TOOL_SET,
} from './plugin.js';
