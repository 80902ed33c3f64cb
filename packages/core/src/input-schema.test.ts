import { describe, expect, it } from 'vitest';
import { buildInputSchema } from './input-schema.js';
import type { ToolDeclaration } from './tool-declaration.js';

const tool = (params: ToolDeclaration['params']): ToolDeclaration => ({
  name: 'GetThing',
  description: 'Reads a thing.',
  method: 'GET',
  path: '/things',
  auth: { kind: 'none' },
  ...(params ? { params } : {}),
});

describe('buildInputSchema', () => {
  it('leaves the object open (the engine refuses unknown parameters), nested objects as declared', () => {
    const schema = buildInputSchema(
      tool([
        {
          name: 'filter',
          in: 'query',
          required: true,
          description: 'Which things',
          schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        },
      ]),
    );
    expect(schema).toEqual({
      type: 'object',
      properties: {
        filter: {
          type: 'object',
          properties: { a: { type: 'string' } },
          additionalProperties: false,
          description: 'Which things',
        },
      },
      required: ['filter'],
    });
  });

  it('closes it for a tool without parameters, which OpenAI strict mode would otherwise read as open', () => {
    expect(buildInputSchema(tool(undefined))).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });
});
