import type { ToolInfo } from '../host.js';

type Schema = {
  type?: unknown;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  readOnly?: boolean;
  description?: string;
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  default?: unknown;
};

function typeOf(s: Schema): string {
  // A long list (HubSpot's 500 languages) is summed up: --schema prints every value.
  if (s.enum && s.enum.length > 8)
    return `${s.enum
      .slice(0, 5)
      .map((v) => JSON.stringify(v))
      .join(' | ')} | … (${s.enum.length} values)`;
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const type = Array.isArray(s.type) ? s.type.join(' | ') : String(s.type ?? 'any');
  return s.format ? `${type} (${s.format})` : type;
}

/** A schema with its `allOf` parts laid into one: their fields and required ones together, the first's kept. */
function merged(s: Schema): Schema {
  if (!s.allOf) return s;
  const parts = [s, ...s.allOf.map(merged)];
  const properties = Object.assign({}, ...parts.map((p) => p.properties ?? {}).reverse());
  return { ...s, allOf: undefined, properties, required: parts.flatMap((p) => p.required ?? []) };
}

/** What a field holds, or each item of an array field holds. */
const innerOf = (p: Schema) => merged(p.type === 'array' && p.items ? p.items : p);

/** A field's type as a person reads it: `array of object`, `one of 2 shapes`, `string (date-time)`. */
function fieldType(p: Schema): string {
  const inner = innerOf(p);
  const alternatives = inner.anyOf ?? inner.oneOf;
  if (p.type === 'array') return `array of ${inner.properties ? 'object' : typeOf(inner)}`;
  return alternatives ? `one of ${alternatives.length} shapes` : typeOf(p);
}

/**
 * A body schema's fields, two levels deep: what a person needs to write one, not every
 * constraint (fields the API fills in itself left out).
 */
function bodyFields(schema: Schema, indent: string, depth: number, lines: string[]): void {
  const required = new Set(schema.required ?? []);
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    if (p.readOnly) continue;
    const inner = innerOf(p);
    const shape = fieldType(p);
    const description = p.description ? `  ${p.description.split('\n')[0]}` : '';
    lines.push(`${indent}${name}: ${shape}${required.has(name) ? '  [required]' : ''}${description}`);
    if (inner.properties && depth > 1) bodyFields(inner, `${indent}  `, depth - 1, lines);
    else if (inner.properties) lines.push(`${indent}  (${Object.keys(inner.properties).length} fields)`);
  }
}

/** One of a body's alternative shapes on a line: its required fields and their types, then the rest by name. */
function shapeLine(shape: Schema): string {
  const required = new Set(shape.required ?? []);
  const fields = Object.entries(shape.properties ?? {}).filter(([, p]) => !p.readOnly);
  const given = fields.filter(([name]) => required.has(name)).map(([name, p]) => `${name}: ${fieldType(p)}`);
  const rest = fields.filter(([name]) => !required.has(name)).map(([name]) => name);
  return `${given.join(', ') || '(nothing required)'}${rest.length ? `; optional: ${rest.join(', ')}` : ''}`;
}

/**
 * One tool as a person reads it: what it does, each parameter, and the request body's fields
 * (with `fullSchema`, the request body's whole JSON Schema instead).
 */
export function describeTool(
  tool: ToolInfo,
  mcpName: string,
  requestBodySchema?: unknown,
  fullSchema = false,
): string {
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
  if (requestBodySchema !== undefined && fullSchema) {
    lines.push('', 'Request body (request_body, a JSON string, when mode is execute), its JSON Schema:');
    lines.push(JSON.stringify(requestBodySchema, null, 2).replace(/^/gm, '  '));
  } else if (requestBodySchema !== undefined) {
    lines.push('', 'Request body (request_body, a JSON string, when mode is execute):');
    let body = merged(requestBodySchema as Schema);
    let shapes = body.anyOf ?? body.oneOf;
    // One shape alone is the body's own fields.
    if (shapes?.length === 1)
      [body, shapes] = [merged({ ...body, anyOf: undefined, oneOf: undefined, allOf: shapes }), undefined];
    const fields = Object.keys(body.properties ?? {}).length > 0;
    if (fields) bodyFields(body, '  ', 2, lines);
    if (shapes)
      lines.push(
        `  ${fields ? 'and ' : ''}one of ${shapes.length} shapes, each with its required fields, then its optional ones:`,
        ...shapes.map((shape, i) => `  ${i + 1}. ${shapeLine(merged(shape))}`),
      );
    else if (!fields) lines.push(`  ${typeOf(body)}`);
    lines.push('', `The whole JSON Schema: toolhost describe ${tool.name} --schema`);
  }
  return `${lines.join('\n')}\n`;
}
