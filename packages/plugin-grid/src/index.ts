export {
  AIRTABLE_OAUTH,
  createGridPlugin,
  DEFAULT_SERVERS,
  gridPlugin as default,
  gridPlugin,
  gridTools,
  TOOL_SET,
} from './plugin.js';
