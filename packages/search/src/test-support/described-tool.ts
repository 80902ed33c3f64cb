import type { SearchableTool } from '../searchable-tool.js';

/** A tool described as the search reads one: name, description, parameters' names, whether it only reads. */
export function describedTool(
  name: string,
  description: string,
  readOnly: boolean,
  params: string[] = [],
): SearchableTool {
  return {
    name,
    toolSet: name.split('.')[0]!,
    description,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
    },
    hints: { readOnly },
  };
}
