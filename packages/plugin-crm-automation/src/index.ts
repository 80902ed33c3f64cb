export {
  createCrmAutomationPlugin,
  crmAutomationPlugin as default,
  crmAutomationPlugin,
  crmAutomationTools,
  DEFAULT_BASE_URL,
  HUBSPOT_OAUTH,
  TOOL_SET,
} from './plugin.js';
