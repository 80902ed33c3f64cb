import type { JsonSchema } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { checkAgainstSchema } from './check-against-schema.js';
import { sampleValue } from './sample-value.js';

describe('sampleValue', () => {
  it('takes what the schema names first: const, the first enum value, the default', () => {
    expect(sampleValue({ const: 'x', enum: ['y'] })).toBe('x');
    expect(sampleValue({ type: 'string', enum: ['asc', 'desc'] })).toBe('asc');
    expect(sampleValue({ type: 'integer', default: 50, minimum: 1 })).toBe(50);
  });

  it('writes strings an agent reads as placeholders: the prefixed id, a format, <name>', () => {
    expect(sampleValue({ type: 'string', description: 'The record (rec…).' }, 'record')).toBe(
      `rec${'X'.repeat(14)}`,
    );
    expect(sampleValue({ type: 'string', format: 'date' })).toBe('2025-01-31');
    expect(sampleValue({ type: 'string' }, 'email_address')).toBe('<email_address>');
  });

  it('keeps a string within its declared length, where the placeholder would not fit', () => {
    expect(sampleValue({ type: 'string', maxLength: 3 }, 'name')).toBe('x');
    expect(sampleValue({ type: 'string', minLength: 20 }, 'name')).toBe('x'.repeat(20));
  });

  it('builds objects from their required properties, branches and parts, to a bounded depth', () => {
    const schema: JsonSchema = {
      allOf: [
        { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        {
          type: 'object',
          required: ['tags', 'size'],
          properties: {
            tags: { type: 'array', items: { anyOf: [{ type: 'integer', minimum: 3 }, { type: 'string' }] } },
            size: { type: 'number' },
            note: { type: 'string' },
          },
        },
      ],
    };
    expect(sampleValue(schema, 'body')).toEqual({ name: '<name>', tags: [3], size: 1 });
    let deep: JsonSchema = { type: 'object', required: ['a'], properties: {} };
    for (let i = 0; i < 40; i++) deep = { type: 'object', required: ['a'], properties: { a: deep } };
    // A recursive schema (here one 40 levels deep) ends in an empty object, 16 levels down.
    expect(JSON.stringify(sampleValue(deep))).toBe(`${'{"a":'.repeat(16)}{}${'}'.repeat(16)}`);
  });

  it('answers values the same schema accepts', () => {
    const properties: Record<string, JsonSchema> = {
      base: { type: 'string', description: 'Base (app…).', pattern: '^app[A-Za-z0-9]{14}$' },
      when: { type: 'string', format: 'date-time' },
      code: { type: 'string', minLength: 8, maxLength: 8 },
      count: { type: 'integer', minimum: 5, maximum: 10 },
      flags: { type: 'object', minProperties: 1 },
    };
    const schema: JsonSchema = { type: 'object', required: Object.keys(properties), properties };
    expect(checkAgainstSchema(schema, sampleValue(schema))).toEqual([]);
    // Required properties deep in a body (tables of fields of options) are filled too.
    let body: JsonSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    for (const key of ['choices', 'options', 'fields', 'tables'])
      body = {
        type: 'object',
        required: [key, 'name'],
        properties: { [key]: { type: 'array', minItems: 1, items: body }, name: { type: 'string' } },
      };
    expect(checkAgainstSchema(body, sampleValue(body, 'body'))).toEqual([]);
  });
});
