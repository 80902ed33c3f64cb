export {
  createCrmEventsPlugin,
  crmEventsPlugin as default,
  crmEventsPlugin,
  crmEventsTools,
  DEFAULT_BASE_URL,
  HUBSPOT_OAUTH,
  TOOL_SET,
} from './plugin.js';
