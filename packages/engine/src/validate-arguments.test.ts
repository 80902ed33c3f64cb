import { buildInputSchema, describeTool, type ToolDeclaration, ToolError } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { buildRequest } from './build-request.js';
import { checkToolSet } from './check-declarations.js';
import { parseRequestBody, validateArguments } from './validate-arguments.js';

const list: ToolDeclaration = {
  name: 'List',
  description: '',
  method: 'GET',
  path: '/rows',
  auth: { kind: 'none' },
  params: [
    {
      name: 'sort_order',
      in: 'query',
      apiName: 'sort',
      style: 'deepObject',
      schema: { type: 'string' },
      decode: {
        kind: 'json',
        schema: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, direction: { enum: ['asc', 'desc'] } },
            required: ['field'],
          },
        },
      },
      description: '',
    },
    {
      name: 'fields',
      in: 'query',
      apiName: 'fields[]',
      schema: { type: 'string' },
      decode: { kind: 'split', separator: ',' },
      description: '',
    },
  ],
};

function prepare(args: Record<string, unknown>) {
  return validateArguments(list, buildInputSchema(list), args).args;
}

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error('expected a ToolError');
}

describe('unknown parameters', () => {
  it('are refused, naming the accepted ones, though the listed schema leaves the object open', () => {
    expect(buildInputSchema(list).additionalProperties).toBeUndefined();
    const e = errorOf(() => prepare({ sort_ordr: '[]' }));
    expect(e.info).toMatchObject({ code: 'invalid_argument', parameter: 'sort_ordr' });
    expect(e.message).toBe("Unknown parameter 'sort_ordr' (accepted: sort_order, fields).");
    // A name that would rewrite the line it is shown on is named with its controls escaped.
    const hostile = errorOf(() => prepare({ 'sort\r\u202efields': '[]' }));
    expect(hostile.message).toBe("Unknown parameter 'sort\\r\\u202efields' (accepted: sort_order, fields).");
  });

  it('are named in a message of bounded size, however many a call sends, beside its other problems', () => {
    // 300,000 unknown keys (3.6 MB over MCP) were each named with the accepted list: 84 MB.
    const args: Record<string, unknown> = { fields: 7, [`long${'g'.repeat(10_000)}`]: 1 };
    for (let i = 0; i < 300_000; i += 1) args[`k${i}`] = i;
    const e = errorOf(() => prepare(args));
    expect(e.info.parameter).toBe('fields');
    expect(e.message).toBe(
      `Parameter 'fields' must be of type string. Unknown parameters 'long${'g'.repeat(60)}…', 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6' and 299993 more unknown (accepted: sort_order, fields).`,
    );
  });
});

describe('more arguments than the tool has parameters', () => {
  it('are refused before they are copied, each read once, beside what the known ones fail', () => {
    // 100,000 made-up keys held the event loop seconds in the copy and its walks.
    const target: Record<string, unknown> = { fields: 7 };
    for (let i = 0; i < 100_000; i += 1) target[`k${i}`] = i;
    const read: string[] = [];
    const args = new Proxy(target, {
      get(t, key, receiver) {
        read.push(String(key));
        return Reflect.get(t, key, receiver);
      },
    });
    const e = errorOf(() => prepare(args));
    expect(read[0]).toBe('fields');
    expect(new Set(read).size).toBe(100_001);
    expect(read).toHaveLength(100_001);
    expect(e.info.parameter).toBe('fields');
    expect(e.message).toBe(
      "Parameter 'fields' must be of type string. Unknown parameters 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7' and 99992 more unknown (accepted: sort_order, fields).",
    );
  });

  it('do not count those holding undefined, which are not given (as the copy leaves them out)', () => {
    expect(() => prepare({ fields: 'a', note: undefined, more: undefined, most: undefined })).not.toThrow();
    expect(errorOf(() => prepare({ fields: 'a', note: undefined, more: 1, most: undefined })).message).toBe(
      "Unknown parameter 'more' (accepted: sort_order, fields).",
    );
  });
});

describe('decoded string parameters', () => {
  it('keeps the spec string type in the input schema', () => {
    expect(buildInputSchema(list).properties?.sort_order).toMatchObject({ type: 'string' });
  });

  it('turns JSON text into the structure the query spells out', () => {
    const args = prepare({ sort_order: '[{"field":"Name","direction":"desc"},{"field":"Age"}]' });
    const url = new URL(buildRequest(list, { toolSet: 'T', baseUrl: 'https://api.test' }, args).url);
    expect([...url.searchParams]).toEqual([
      ['sort[0][field]', 'Name'],
      ['sort[0][direction]', 'desc'],
      ['sort[1][field]', 'Age'],
    ]);
  });

  it('splits comma-separated text, trimming and dropping empty parts', () => {
    const args = prepare({ fields: 'Name, Age ,,Notes' });
    expect(args.fields).toEqual(['Name', 'Age', 'Notes']);
  });

  it('names the parameter when its text is not JSON', () => {
    const e = errorOf(() => prepare({ sort_order: '[{"field":' }));
    expect(e.info).toMatchObject({ code: 'invalid_argument', parameter: 'sort_order' });
    expect(e.message).toBe(
      "Parameter 'sort_order' is not valid JSON: unexpected end of text, expected a value after ':' (the '{' at line 1, column 2 is not closed).",
    );
  });

  it('names the place inside the JSON that breaks its schema', () => {
    const e = errorOf(() => prepare({ sort_order: '[{"field":"Name","direction":"up"}]' }));
    expect(e.info).toMatchObject({ code: 'invalid_argument', parameter: 'sort_order[0].direction' });
    expect(e.message).toMatch(/must be one of/);
  });
});

describe('parameters that need another', () => {
  const complete: ToolDeclaration = {
    name: 'CompleteEvent',
    description: 'Complete an event.',
    method: 'POST',
    path: '/events',
    auth: { kind: 'none' },
    body: { kind: 'fields' },
    dependentRequired: { object_id: ['object_type'] },
    params: [
      { name: 'object_id', in: 'body', schema: { type: 'string' }, description: '' },
      { name: 'object_type', in: 'body', schema: { type: 'string' }, description: '' },
    ],
  };
  const schema = buildInputSchema(complete);

  it('says the rule in the description and keeps it out of the schema', () => {
    expect(schema).not.toHaveProperty('dependencies');
    expect(describeTool(complete)).toBe("Complete an event. 'object_id' needs 'object_type' as well.");
  });

  it('refuses the one without the other, naming the missing parameter', () => {
    const e = errorOf(() => validateArguments(complete, schema, { object_id: '1' }));
    expect(e.info).toMatchObject({ code: 'invalid_argument', parameter: 'object_type' });
    expect(e.message).toBe("Parameter 'object_type' is required when 'object_id' is given.");
    expect(validateArguments(complete, schema, { object_type: 'contact' }).args).toEqual({
      object_type: 'contact',
    });
  });
});

describe('at least one of a group', () => {
  const rename: ToolDeclaration = {
    name: 'UpdateField',
    description: '',
    method: 'PATCH',
    path: '/fields/x',
    auth: { kind: 'none' },
    body: { kind: 'fields' },
    requiresAnyOf: [['name', 'description']],
    params: [
      { name: 'name', in: 'body', schema: { type: 'string' }, description: '' },
      { name: 'description', in: 'body', schema: { type: 'string' }, description: '' },
    ],
  };
  const schema = buildInputSchema(rename);

  it('says the rule in the description, not at the top of the schema, and no empty descriptions', () => {
    expect(Object.keys(schema).sort()).toEqual(['properties', 'type']);
    expect(describeTool({ ...rename, description: 'Rename a field.' })).toBe(
      "Rename a field. Give at least one of 'name', 'description'.",
    );
    expect(schema.properties?.name).toEqual({ type: 'string' });
  });

  it('accepts either one', () => {
    expect(validateArguments(rename, schema, { description: 'd' }).args).toEqual({ description: 'd' });
    expect(validateArguments(rename, schema, { name: 'n' }).args).toEqual({ name: 'n' });
  });

  it('is refused at load when it names an undeclared parameter', () => {
    expect(
      checkToolSet({
        contractVersion: '2.0',
        toolSet: 'T',
        plugin: { name: 'p', version: '1.0.0' },
        servers: { default: 'https://t' },
        tools: [{ ...rename, description: 'Rename a field.', requiresAnyOf: [['name', 'title']] }],
      }),
    ).toEqual([{ tool: 'UpdateField', field: 'requiresAnyOf', message: 'names unknown parameter title' }]);
  });

  it('names the group when neither is given', () => {
    const e = errorOf(() => validateArguments(rename, schema, {}));
    expect(e.info).toMatchObject({ code: 'invalid_argument', parameter: 'name' });
    expect(e.message).toBe("Give at least one of the parameters 'name', 'description'.");
  });
});

function modeSchema(decl: ToolDeclaration) {
  if (decl.body?.kind !== 'mode') throw new Error('not a mode tool');
  return decl.body.schema;
}

describe('errors that take one round trip', () => {
  const send: ToolDeclaration = {
    name: 'Send',
    description: 'Send.',
    method: 'POST',
    path: '/items/{id}/events',
    auth: { kind: 'none' },
    params: [
      {
        name: 'item',
        in: 'path',
        apiName: 'id',
        executeOnly: 'required',
        schema: { type: 'string' },
        description: '',
      },
      { name: 'channel', in: 'query', executeOnly: 'required', schema: { type: 'string' }, description: '' },
    ],
    body: {
      kind: 'mode',
      schema: {
        type: 'object',
        properties: {
          batch: {
            type: 'array',
            items: {
              anyOf: [
                { type: 'object', required: ['type', 'event', 'userId'] },
                { type: 'object', required: ['type', 'groupId', 'traits'] },
                { type: 'object', required: ['type', 'previousId', 'userId'] },
              ],
            },
          },
        },
      },
    },
  };
  const schema = buildInputSchema(send);

  it('names the request body and every missing execute-only parameter at once', () => {
    const e = errorOf(() => validateArguments(send, schema, { mode: 'execute' }));
    expect(e.info.parameter).toBe('request_body');
    expect(e.message).toBe(
      "Parameter 'request_body' is required when mode is execute (a JSON string; call with mode get_request_schema to see its schema). Parameter 'item' is required when mode is execute. Parameter 'channel' is required when mode is execute.",
    );
  });

  it('says which alternative of a body came closest and what it lacks, not every branch', () => {
    const e = errorOf(() =>
      parseRequestBody(JSON.stringify({ batch: [{ type: 'track', userId: 'u1' }] }), modeSchema(send)),
    );
    expect(e.message).toBe(
      'The request body does not match its schema: request_body.batch[0] matches none of the 3 allowed shapes; the closest, shape 1, lacks what follows; request_body.batch[0].event is required but missing.',
    );
    expect(e.message).not.toContain('groupId');
  });
});

describe('request_body as a string or as the JSON itself', () => {
  const send: ToolDeclaration = {
    name: 'Send',
    description: 'Send.',
    method: 'POST',
    path: '/events',
    auth: { kind: 'none' },
    body: {
      kind: 'mode',
      schema: {
        type: 'object',
        properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['name'],
        additionalProperties: false,
      },
    },
  };
  const schema = buildInputSchema(send);
  const body = { name: 'signup', tags: ['a'] };

  it('takes an object as it takes its JSON text, and the listed schema still says string', () => {
    const asText = validateArguments(send, schema, { mode: 'execute', request_body: JSON.stringify(body) });
    const asObject = validateArguments(send, schema, { mode: 'execute', request_body: body });
    expect(parseRequestBody(asObject.args.request_body, modeSchema(send))).toEqual({ value: body });
    expect(parseRequestBody(asText.args.request_body, modeSchema(send))).toEqual({ value: body });
    expect(schema.properties?.request_body).toMatchObject({ type: 'string' });
  });

  it('checks an object against the body schema with the same words as its text', () => {
    const bad = { name: 1, extra: true };
    const fromText = errorOf(() => parseRequestBody(JSON.stringify(bad), modeSchema(send)));
    const fromObject = errorOf(() => parseRequestBody(bad, modeSchema(send)));
    expect(fromObject.message).toBe(fromText.message);
    expect(fromObject.info.parameter).toBe(fromText.info.parameter);
  });

  it('shows the keys a caller wrote escaped and bounded, and never quotes text that does not parse', () => {
    // A key holding \r or a bidi override rewrote the line it was read on, one of 100,000
    // characters made a message as long, and V8 quoted the text around a fault: a secret perhaps.
    const odd = errorOf(() => parseRequestBody({ name: 'x', 'ev\r\u202eil': 1 }, modeSchema(send)));
    expect(odd.message).toContain('request_body.ev\\r\\u202eil is not a known property');
    const long = errorOf(() => parseRequestBody({ name: 'x', ['k'.repeat(100_000)]: 1 }, modeSchema(send)));
    expect(long.message.length).toBeLessThan(400);
    expect(String(long.info.parameter).length).toBeLessThanOrEqual(257);
    const unparsed = errorOf(() => parseRequestBody('{"name": sk-live-SECRET-TOKEN}', modeSchema(send)));
    expect(unparsed.message).toBe(
      "Parameter 'request_body' is not valid JSON: expected a value after ':' at line 1, column 10, found 's'.",
    );
    expect(unparsed.message).not.toContain('sk-live');
  });

  it('still refuses a value that is neither, naming request_body', () => {
    for (const value of [42, true]) {
      const e = errorOf(() => {
        const { args } = validateArguments(send, schema, { mode: 'execute', request_body: value });
        parseRequestBody(args.request_body, modeSchema(send));
      });
      expect(e.info.parameter).toBe('request_body');
      expect(e.message).toMatch(/request_body/);
    }
  });
});
