import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonSchema, ToolDeclaration, ToolSetDefinition } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolEngine } from './engine.js';
import { UndiciHttpSender } from './http-sender.js';
import { type NumberTexts, stringifyWithNumbers } from './number-texts.js';
import { ToolRegistry } from './registry.js';
import { MapSecretSource } from './static-auth.js';

// An id past 2^53 reaches the agent as the string of its literal; given back as that string
// where the API wants an integer (or a number), it goes out as the bare literal, as written.

const ID = '12345678901234567891';
const integer = { type: 'integer' } as const;

const thing: JsonSchema = {
  type: 'object',
  properties: {
    id: integer,
    ids: { type: 'array', items: integer },
    parent: { type: ['integer', 'null'] },
    ratio: { type: 'number' },
    amounts: { type: 'array', items: { type: 'number' } },
    either: { anyOf: [integer, { type: 'boolean' }] },
    nested: {
      type: 'object',
      properties: { deep: { type: 'array', items: { type: 'object', properties: { n: integer } } } },
    },
    items: { type: 'array', items: { type: 'object', properties: { id: integer } } },
    label: { type: 'string' },
    code: { oneOf: [{ type: 'string' }, integer] },
    page: { type: 'integer', minimum: 1, maximum: 100 },
    small: { type: 'integer', format: 'int32' },
    level: { type: 'integer', enum: [1, 2, 3] },
  },
  additionalProperties: false,
};

const tools: ToolDeclaration[] = [
  {
    name: 'Update',
    description: 'Update a thing.',
    method: 'POST',
    path: '/things',
    auth: { kind: 'none' },
    body: { kind: 'mode', schema: thing, limits: { perItem: { property: 'items', maxBytes: 8 } } },
  },
  {
    name: 'Patch',
    description: 'Patch a thing.',
    method: 'PATCH',
    path: '/things/{id}',
    auth: { kind: 'none' },
    body: { kind: 'fields' },
    params: [
      { name: 'thing', in: 'path', apiName: 'id', required: true, schema: integer, description: '' },
      { name: 'count', in: 'body', schema: integer, description: '' },
      { name: 'parent', in: 'body', bodyPath: 'links.parent', schema: integer, description: '' },
      { name: 'extra', in: 'body', wholeBody: true, schema: thing, description: '' },
      { name: 'label', in: 'body', bodyPath: 'label', schema: { type: 'string' }, description: '' },
      { name: 'alias', in: 'body', bodyPath: 'id', schema: { type: 'string' }, description: '' },
    ],
  },
  {
    name: 'Find',
    description: 'Find things.',
    method: 'GET',
    path: '/things',
    auth: { kind: 'none' },
    params: [
      { name: 'after', in: 'query', schema: integer, description: '' },
      { name: 'above', in: 'query', schema: { type: 'number' }, description: '' },
      {
        name: 'ids',
        in: 'query',
        style: 'comma',
        schema: { type: 'array', items: integer },
        description: '',
      },
      { name: 'filter', in: 'query', style: 'json', schema: thing, description: '' },
    ],
  },
];

interface Received {
  method: string;
  url: string;
  body: string;
}

let server: Server;
let received: Received[] = [];
let answer = '{"ok":true}';
const sender = new UndiciHttpSender();
let call: (name: string, args: unknown) => ReturnType<ToolEngine['call']>;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const set: ToolSetDefinition = {
    contractVersion: '2.0',
    toolSet: 'T',
    plugin: { name: 'p', version: '1' },
    servers: { default: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    tools,
  };
  const engine = new ToolEngine(new ToolRegistry([set]), {
    authProviders: [],
    secrets: new MapSecretSource({}),
    http: sender,
  });
  call = (name, args) => engine.call(`T.${name}`, args, { userId: 'u1' });
});

beforeEach(() => {
  received = [];
  answer = '{"ok":true}';
});

afterAll(async () => {
  sender.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const update = (body: unknown) => ({ mode: 'execute', request_body: body });

describe('a string holding a number literal where the schema wants a number', () => {
  it('goes back upstream as the id the answer held, digit for digit', async () => {
    answer = `{"things":[{"id":${ID},"name":"a"}]}`;
    const found = await call('Find', {});
    expect(found).toMatchObject({ ok: true, body: { things: [{ id: ID }] } });
    const id = (found as { body: { things: { id: string }[] } }).body.things[0]!.id;
    expect(await call('Update', update(JSON.stringify({ id })))).toMatchObject({ ok: true });
    expect(received[1]!.body).toBe(`{"id":${ID}}`);
  });

  it('goes out bare wherever request_body holds it, given as text or as the object', async () => {
    const body = {
      id: ID,
      ids: ['1', ID, 2],
      parent: '-9007199254740993',
      ratio: '0.1000000000000000055511151231257827',
      amounts: ['1e400', '-1.5E-7', '6.02e+23', 0.5],
      either: '42',
      nested: { deep: [{ n: ID }, { n: 7 }] },
      label: ID,
      code: '123',
      page: '100',
      small: '-2147483648',
      level: '3',
    };
    const bytes =
      `{"id":${ID},"ids":[1,${ID},2],"parent":-9007199254740993,"ratio":0.1000000000000000055511151231257827,` +
      `"amounts":[1e400,-1.5E-7,6.02e+23,0.5],"either":42,"nested":{"deep":[{"n":${ID}},{"n":7}]},` +
      `"label":"${ID}","code":"123","page":100,"small":-2147483648,"level":3}`;
    expect(await call('Update', update(JSON.stringify(body)))).toMatchObject({ ok: true });
    expect(await call('Update', update(body))).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual([bytes, bytes]);
  });

  it('goes out bare in body parameters, and a later parameter that replaces the field replaces it', async () => {
    const args = {
      thing: ID,
      count: '-0',
      parent: ID,
      extra: { id: '5', ids: [ID], nested: { deep: [{ n: ID }] } },
      label: '6',
    };
    expect(await call('Patch', args)).toMatchObject({ ok: true });
    expect(await call('Patch', { ...args, alias: '5' })).toMatchObject({ ok: true });
    expect(received.map((r) => [r.method, r.url, r.body])).toEqual([
      [
        'PATCH',
        `/things/${ID}`,
        `{"count":-0,"links":{"parent":${ID}},"id":5,"ids":[${ID}],"nested":{"deep":[{"n":${ID}}]},"label":"6"}`,
      ],
      [
        'PATCH',
        `/things/${ID}`,
        `{"count":-0,"links":{"parent":${ID}},"id":"5","ids":[${ID}],"nested":{"deep":[{"n":${ID}}]},"label":"6"}`,
      ],
    ]);
  });

  it('goes into a query as written, and into JSON in a query bare', async () => {
    const args = { after: ID, above: '1e+21', ids: [ID, '2'], filter: { id: ID, label: '7' } };
    expect(await call('Find', args)).toMatchObject({ ok: true });
    const { searchParams, search } = new URL(received[0]!.url, 'http://x');
    expect(search).toBe(
      `?after=${ID}&above=1e%2B21&ids=${ID}%2C2&filter=${encodeURIComponent(`{"id":${ID},"label":"7"}`)}`,
    );
    expect(searchParams.get('filter')).toBe(`{"id":${ID},"label":"7"}`);
  });

  it('counts the bytes of an item as they are sent against its limit', async () => {
    // {"id":5} is the 8 bytes the limit allows, as {"id":"5"} (10) is not; {"id":55} is 9.
    expect(await call('Update', update({ items: [{ id: '5' }] }))).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual(['{"items":[{"id":5}]}']);
    const out = await call('Update', update({ items: [{ id: '5' }, { id: '55' }] }));
    expect(out).toMatchObject({
      ok: false,
      error: {
        code: 'payload_too_large',
        message: "Item 1 of 'items' is 9 bytes; the API accepts at most 8 bytes per item.",
      },
    });
  });

  it('is refused where it is no such literal, or its number is out of bounds, naming where, and nothing is sent', async () => {
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ id: '1.5' }, 'request_body.id', 'must be of type integer'],
      [{ id: '1e3' }, 'request_body.id', 'must be of type integer'],
      [{ ids: ['007'] }, 'request_body.ids[0]', 'must be of type integer'],
      [{ id: ' 1' }, 'request_body.id', 'must be of type integer'],
      [{ id: '+1' }, 'request_body.id', 'must be of type integer'],
      [{ id: '' }, 'request_body.id', 'must be of type integer'],
      [{ id: '0x10' }, 'request_body.id', 'must be of type integer'],
      [{ ratio: '.5' }, 'request_body.ratio', 'must be of type number'],
      [{ ratio: '1.' }, 'request_body.ratio', 'must be of type number'],
      [{ ratio: 'NaN' }, 'request_body.ratio', 'must be of type number'],
      [{ ratio: 'Infinity' }, 'request_body.ratio', 'must be of type number'],
      [{ amounts: ['1e'] }, 'request_body.amounts[0]', 'must be of type number'],
      [{ page: '0' }, 'request_body.page', 'must be >= 1'],
      [{ page: ID }, 'request_body.page', 'must be <= 100'],
      [{ small: '2147483648' }, 'request_body.small', 'must be a valid int32'],
      [{ level: '4' }, 'request_body.level', 'must be one of: 1, 2, 3'],
    ];
    for (const [body, parameter, problem] of refusals) {
      const out = await call('Update', update(JSON.stringify(body)));
      expect(out, JSON.stringify(body)).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_argument',
          parameter,
          message: expect.stringContaining(`${parameter} ${problem}`),
        },
      });
    }
    expect(await call('Patch', { thing: '12a' })).toMatchObject({
      ok: false,
      error: { parameter: 'thing', message: "Parameter 'thing' must be of type integer." },
    });
    expect(await call('Find', { ids: ['1', '1.0'] })).toMatchObject({
      ok: false,
      error: { parameter: 'ids[1]', message: "Parameter 'ids[1]' must be of type integer." },
    });
    expect(received).toEqual([]);
  });
});

describe('stringifyWithNumbers', () => {
  it('writes what JSON.stringify writes, but the strings it is told of bare', () => {
    const texts = new Map<string, NumberTexts>([
      ['a', true],
      ['list', new Map([['1', true]])],
    ]);
    const value = JSON.parse(
      '{"__proto__":{"x":1},"a":"12","list":["3","4",null],"s":"5","when":"2020-01-01T00:00:00.000Z"}',
    );
    value.skip = undefined;
    value.list.push(undefined, () => 1);
    expect(stringifyWithNumbers(value, texts)).toBe(
      '{"__proto__":{"x":1},"a":12,"list":["3",4,null,null,null],"s":"5","when":"2020-01-01T00:00:00.000Z"}',
    );
    expect(stringifyWithNumbers(value, undefined)).toBe(JSON.stringify(value));
    expect(stringifyWithNumbers('7', true)).toBe('7');
  });

  it('quotes, as JSON.stringify would, what is no number literal or has its own toJSON', () => {
    expect(stringifyWithNumbers({ a: 'x1' }, new Map([['a', true as const]]))).toBe('{"a":"x1"}');
    const dated = { at: new Date(0), n: { toJSON: () => ({ v: '1' }), v: '1' } };
    const texts = new Map<string, NumberTexts>([['n', new Map([['v', true]])]]);
    expect(stringifyWithNumbers(dated, texts)).toBe(JSON.stringify(dated));
  });
});
