export type { PastRequest } from './past-requests.js';
export type { SearchableTool } from './searchable-tool.js';
export { ToolIndex, type ToolIndexOptions, type ToolMatch, type ToolSearchOptions } from './tool-index.js';
