export { crmEventsPlugin as default } from './plugin.js';
export { createCrmEventsPlugin, crmEventsPlugin, crmEventsTools, DEFAULT_BASE_URL, TOOL_SET } from './plugin.js';
