export { AIRTABLE_OAUTH } from './catalog/auth.js';
export {
  createGridPlugin,
  DEFAULT_SERVERS,
  gridPlugin as default,
  gridPlugin,
  gridTools,
  TOOL_SET,
} from './plugin.js';
