export { HUBSPOT_OAUTH } from './catalog/auth.js';
export {
  createCrmEventsPlugin,
  crmEventsPlugin as default,
  crmEventsPlugin,
  crmEventsTools,
  DEFAULT_BASE_URL,
  TOOL_SET,
} from './plugin.js';
