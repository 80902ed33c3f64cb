import { describe, expect, it } from 'vitest';
import { compactSchema, expandSchemaReferences } from './compact-schema.js';

type Node = Record<string, unknown>;
const expandReferences = (schema: Node) => expandSchemaReferences(schema) as Node;

const field = (n: number) => ({
  type: 'object',
  description: `A form field. ${'Long enough to be worth sharing. '.repeat(5)}`,
  properties: {
    name: { type: 'string' },
    options: { type: 'array', items: { type: 'string' } },
    n: { const: n },
  },
});

describe('compactSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      first: { type: 'array', items: { anyOf: [field(1), field(2)] } },
      second: { type: 'array', items: { anyOf: [field(1), field(2)] } },
      example: { type: 'object', default: field(1) },
    },
  };

  it('writes a repeated subschema once and refers to it, saying the same schema', () => {
    const compacted = compactSchema(schema) as Node;
    expect(JSON.stringify(compacted).length).toBeLessThan(JSON.stringify(schema).length * 0.8);
    expect(Object.keys(compacted.$defs as object).length).toBeGreaterThan(0);
    expect(expandReferences(compacted)).toEqual(schema);
  });

  it('leaves values that are not subschemas alone, however often they repeat', () => {
    const compacted = compactSchema(schema) as { properties: { example: { default: unknown } } };
    expect(compacted.properties.example.default).toEqual(field(1));
  });

  it('leaves a schema without repeats, or with references of its own, as it is', () => {
    const small = { type: 'object', properties: { a: { type: 'string' } } };
    expect(compactSchema(small)).toBe(small);
    const referring = { ...schema, $defs: { x: { type: 'string' } } };
    expect(compactSchema(referring)).toBe(referring);
  });
});
