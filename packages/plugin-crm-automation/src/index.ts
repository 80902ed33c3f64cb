export { HUBSPOT_OAUTH } from './catalog/auth.js';
export {
  createCrmAutomationPlugin,
  crmAutomationPlugin as default,
  crmAutomationPlugin,
  crmAutomationTools,
  DEFAULT_BASE_URL,
  TOOL_SET,
} from './plugin.js';
