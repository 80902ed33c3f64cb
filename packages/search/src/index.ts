export type { SearchableTool } from './searchable-tool.js';
export { ToolIndex, type ToolMatch, type ToolSearchOptions } from './tool-index.js';
