import type { ToolInfo } from '../host.js';

type Schema = {
  type?: unknown;
  description?: string;
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  default?: unknown;
};

function typeOf(s: Schema): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const type = Array.isArray(s.type) ? s.type.join(' | ') : String(s.type ?? 'any');
  return s.format ? `${type} (${s.format})` : type;
}

/** One tool as a person reads it: what it does, each parameter, and the request body's schema. */
export function describeTool(tool: ToolInfo, mcpName: string, requestBodySchema?: unknown): string {
  const schema = tool.inputSchema as Schema;
  const required = new Set(schema.required ?? []);
  const lines = [
    `${tool.name}  (over MCP: ${mcpName})`,
    `  ${tool.description}`,
    `  ${tool.hints.readOnly ? 'read-only' : tool.hints.destructive ? 'writes; may destroy data' : 'writes'}`,
    '',
    'Parameters:',
  ];
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) lines.push('  (none)');
  for (const [name, p] of props) {
    const flags = [required.has(name) ? 'required' : 'optional'];
    if (p.default !== undefined) flags.push(`default ${JSON.stringify(p.default)}`);
    lines.push(
      `  ${name}: ${typeOf(p)}  [${flags.join(', ')}]${p.description ? `\n      ${p.description}` : ''}`,
    );
  }
  if (requestBodySchema !== undefined) {
    lines.push('', 'Request body (request_body, a JSON string, when mode is execute):');
    lines.push(JSON.stringify(requestBodySchema, null, 2).replace(/^/gm, '  '));
  }
  return `${lines.join('\n')}\n`;
}
