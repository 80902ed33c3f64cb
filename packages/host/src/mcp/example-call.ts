/**
 * An example call_tool invocation of one tool, derived from its schema: every required
 * argument with a value of its type (an enum's first value, a date for a date, an id of the
 * declared prefix such as `rec…`), and for a tool with a `mode` parameter, `execute` with a
 * request body made the same way from the body's schema. Placeholders, not data: an agent
 * sees the shape of a call before it makes one.
 */

type Schema = Record<string, unknown>;

const MAX_DEPTH = 4;

/** A value of `schema`'s type; `name` is the parameter's, for placeholders. */
export function exampleValue(schema: Schema | undefined, name: string, depth = 0): unknown {
  if (!schema || typeof schema !== 'object') return `<${name}>`;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) return exampleValue(branches[0], name, depth);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return depth >= MAX_DEPTH ? [] : [exampleValue(schema.items as Schema | undefined, name, depth + 1)];
    case 'object':
      return depth >= MAX_DEPTH ? {} : exampleObject(schema, depth + 1);
    default:
      return exampleString(schema, name);
  }
}

function exampleString(schema: Schema, name: string): string {
  const description = typeof schema.description === 'string' ? schema.description : '';
  const prefix = /\b([a-z]{3})…/.exec(description)?.[1];
  if (prefix) return `${prefix}${'X'.repeat(14)}`;
  switch (schema.format) {
    case 'uuid':
      return '123e4567-e89b-12d3-a456-426614174000';
    case 'date':
      return '2025-01-31';
    case 'date-time':
      return '2025-01-31T09:00:00Z';
    case 'email':
      return 'jane@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    default:
      return `<${name}>`;
  }
}

/** The required properties of an object schema, each with an example value. */
function exampleObject(schema: Schema, depth: number): Record<string, unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(required.map((key) => [key, exampleValue(properties[key], key, depth)]));
}

/** `{ name, arguments }` for call_tool; `bodySchema` is a mode tool's request body schema. */
export function exampleCall(
  name: string,
  inputSchema: Schema | undefined,
  bodySchema?: Schema,
): { name: string; arguments: Record<string, unknown> } {
  const args = exampleObject(inputSchema ?? {}, 0);
  if (bodySchema && 'mode' in args) {
    args.mode = 'execute';
    args.request_body = JSON.stringify(exampleValue(bodySchema, 'body'));
  }
  return { name, arguments: args };
}
