import type { JsonSchema } from '@toolhost/core';

/**
 * Deeper than any request body the plugins declare (a new base's tables and their fields, a
 * form's field groups and their fields): a sample cut short misses required properties and
 * is refused. A recursive schema stops here.
 */
const MAX_DEPTH = 16;

/**
 * A value that satisfies `schema`, for a call's shape rather than its data: a `const`, an
 * enum's first value or the default where there is one; the first branch of an `anyOf` /
 * `oneOf`, every part of an `allOf`; the minimum (or 1) for a number; one item for an array;
 * every required property for an object. A string is an id of the prefix the description
 * names (`rec…` gives `recXXXXXXXXXXXXXX`), a value of its format, or the placeholder
 * `<name>` (`name` is the parameter's). Used by the host's example calls and by the
 * conformance suite, which fills the parameters a case is not about with it.
 */
export function sampleValue(schema: JsonSchema | undefined, name = 'value', depth = 0): unknown {
  if (!schema || typeof schema !== 'object') return `<${name}>`;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as JsonSchema[] | undefined;
    if (Array.isArray(branches) && branches[0]) return sampleValue(branches[0], name, depth);
  }
  const parts = schema.allOf as JsonSchema[] | undefined;
  if (Array.isArray(parts)) return Object.assign({}, ...parts.map((p) => sampleValue(p, name, depth)));
  const type = Array.isArray(schema.type)
    ? schema.type[0]
    : (schema.type ?? (schema.properties ? 'object' : 'string'));
  switch (type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return depth >= MAX_DEPTH ? [] : [sampleValue(schema.items ?? { type: 'string' }, name, depth + 1)];
    case 'object':
      return depth >= MAX_DEPTH ? {} : sampleObject(schema, depth + 1);
    default:
      return sampleString(schema, name);
  }
}

function sampleObject(schema: JsonSchema, depth: number): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const out: Record<string, unknown> = schema.minProperties ? { key: 'value' } : {};
  for (const key of schema.required ?? []) out[key] = sampleValue(properties[key], key, depth);
  return out;
}

function sampleString(schema: JsonSchema, name: string): string {
  const prefix = /\b([a-z]{3})…/.exec(schema.description ?? '')?.[1];
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
  }
  const placeholder = `<${name}>`;
  // A placeholder that does not fit the declared length would be refused: plain letters instead.
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  return placeholder.length >= min && placeholder.length <= max ? placeholder : 'x'.repeat(Math.max(1, min));
}
