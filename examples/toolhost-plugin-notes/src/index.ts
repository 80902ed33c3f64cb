export { createNotesPlugin, notesPlugin as default, notesPlugin, TOOL_SET } from './plugin.js';
