import type { JsonSchema, ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type NumberTexts, stringifyWithNumbers } from './number-texts.js';
import { type LoopbackEngine, type Received, startLoopbackEngine } from './test-support/loopback-engine.js';

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

// Bounds a double cannot judge for the literal it stands for, and places that take strings.
const judged: JsonSchema = {
  type: 'object',
  definitions: { Id: { type: 'integer', format: 'int64' } },
  properties: {
    int64: { type: 'integer', format: 'int64' },
    // As a vendor's schema text has them, read as doubles: 2^63, and 12345678901234567168.
    ...JSON.parse(
      '{"capped":{"type":"integer","maximum":9223372036854775807},"listed":{"type":"integer","enum":[12345678901234567890]}}',
    ),
    cents: { type: 'number', maximum: 100, multipleOf: 0.01 },
    pinned: { type: 'integer', const: 9007199254740992 },
    thousands: { type: 'integer', multipleOf: 1000 },
    positive: { type: 'number', minimum: 0 },
    below: { type: 'number', exclusiveMaximum: 100 },
    count: integer,
    ratio: { type: 'number' },
    referred: { $ref: '#/definitions/Id' },
    either: {
      anyOf: [
        { type: 'integer', maximum: 10 },
        { type: 'integer', minimum: 1e20 },
      ],
    },
    word: {
      oneOf: [
        { type: 'string', pattern: '^[a-z]+$' },
        { type: 'integer', minimum: 1 },
      ],
    },
    short: {
      anyOf: [
        { type: 'string', maxLength: 2 },
        { type: 'integer', maximum: 10 },
      ],
    },
    code: { oneOf: [{ type: 'string', pattern: '^[A-Z]{2}-[0-9]+$' }, integer] },
    typed: { type: ['integer', 'string'] },
    capless: { allOf: [integer, { maximum: 10 }] },
    ids: { type: 'array', uniqueItems: true, items: integer },
    rows: { type: 'array', uniqueItems: true, items: { type: 'object', properties: { id: integer } } },
  },
  additionalProperties: false,
};

const tools: ToolDeclaration[] = [
  {
    name: 'Judge',
    description: 'Judge a thing.',
    method: 'POST',
    path: '/judged',
    auth: { kind: 'none' },
    body: { kind: 'mode', schema: judged },
  },
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
      { name: 'since', in: 'query', schema: { type: 'integer', format: 'int64' }, description: '' },
    ],
  },
];

const received: Received[] = [];
let answer = '{"ok":true}';
let loop: LoopbackEngine;
let call: LoopbackEngine['call'];

beforeAll(async () => {
  loop = await startLoopbackEngine('T', tools, received, () => answer);
  call = loop.call;
});

beforeEach(() => {
  received.length = 0;
  answer = '{"ok":true}';
});

afterAll(() => loop.close());

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
      amounts: ['1e300', '-1.5E-7', '6.02e+23', 0.5, '0e-400'],
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
      `"amounts":[1e300,-1.5E-7,6.02e+23,0.5,0e-400],"either":42,"nested":{"deep":[{"n":${ID}},{"n":7}]},` +
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
      // Its number out of bounds, a string is refused for the bound it fails, not for its type.
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
    // Only what is wrong is named: a good id beside a bad page is not called a wrong type.
    expect(await call('Update', update({ id: ID, page: '0' }))).toMatchObject({
      ok: false,
      error: {
        parameter: 'request_body.page',
        message: 'The request body does not match its schema: request_body.page must be >= 1.',
      },
    });
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

const judge = (body: unknown) => call('Judge', update(JSON.stringify(body)));

/** Each body refused, naming where and saying what, and nothing sent. */
async function refuses(cases: [Record<string, unknown>, string, string][]): Promise<void> {
  for (const [body, parameter, problem] of cases) {
    expect(await judge(body), JSON.stringify(body)).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_argument',
        parameter,
        message: expect.stringContaining(`${parameter} ${problem}`),
      },
    });
  }
  expect(received).toEqual([]);
}

const PAST_2_53 = 'past 2^53 (9007199254740992) a number in the schema is known only as its nearest double';

describe('a string standing for a number its nearest double would misjudge', () => {
  it('is judged on its literal against formats, bounds, multipleOf, enum and const', async () => {
    await refuses([
      [{ int64: '99999999999999999999999999' }, 'request_body.int64', 'must be a valid int64'],
      [{ int64: '9223372036854775808' }, 'request_body.int64', 'must be a valid int64'],
      [{ int64: '-9223372036854775809' }, 'request_body.int64', 'must be a valid int64'],
      [{ referred: '9223372036854775808' }, 'request_body.referred', 'must be a valid int64'],
      [{ cents: '100.0000000000000001' }, 'request_body.cents', 'must be <= 100'],
      [{ cents: '0.500000000000000000001' }, 'request_body.cents', 'must be a multiple of 0.01'],
      [{ thousands: '12345678901234567891' }, 'request_body.thousands', 'must be a multiple of 1000'],
    ]);
  });

  it('is refused for the bound it fails, judged on its literal, not for its type', async () => {
    await refuses([
      [{ below: '100.5' }, 'request_body.below', 'must be < 100'],
      [{ below: '100.00000000000000000001' }, 'request_body.below', 'must be < 100'],
      // Its double, 100, fails the bound the literal keeps.
      [
        { below: '99.999999999999999999' },
        'request_body.below',
        'cannot be checked exactly against < 100: the schema was checked against its nearest double, which falls on the other side',
      ],
      [
        { either: '50' },
        'request_body.either',
        'matches none of the 2 allowed shapes; the closest, shape 1, lacks what follows; request_body.either must be <= 10',
      ],
    ]);
    expect(await call('Find', { filter: { id: ID, page: '101' } })).toMatchObject({
      ok: false,
      error: { parameter: 'filter.page', message: "Parameter 'filter.page' must be <= 100." },
    });
    expect(received).toEqual([]);
  });

  it('is judged so in tool arguments too, naming the parameter', async () => {
    expect(await call('Find', { since: '9223372036854775808' })).toMatchObject({
      ok: false,
      error: { parameter: 'since', message: "Parameter 'since' must be a valid int64." },
    });
    expect(received).toEqual([]);
    expect(await call('Find', { since: '9223372036854775807' })).toMatchObject({ ok: true });
    expect(received.map((r) => r.url)).toEqual(['/things?since=9223372036854775807']);
  });

  it('is refused where a number in the schema past 2^53 is its nearest double, which it cannot be told from', async () => {
    // The schema's 9223372036854775807 is the double 2^63, as are all literals within 512 of it.
    await refuses([
      [
        { capped: '9223372036854775808' },
        'request_body.capped',
        `cannot be checked exactly against <= 9223372036854776000: ${PAST_2_53}`,
      ],
      [
        { capped: '9223372036854775807' },
        'request_body.capped',
        'cannot be checked exactly against <= 9223372036854776000',
      ],
      [
        { pinned: '9007199254740993' },
        'request_body.pinned',
        'cannot be checked exactly against equal to 9007199254740992',
      ],
      [
        { listed: '12345678901234567891' },
        'request_body.listed',
        'cannot be checked exactly against one of [12345678901234567000]',
      ],
      // In the branch of an anyOf its double passed, and ajv reported nothing of.
      [
        { either: '99999999999999999999' },
        'request_body.either',
        'cannot be checked exactly against >= 100000000000000000000',
      ],
    ]);
  });

  it('goes out bare where its literal is within the bounds, whatever its double', async () => {
    const body = {
      int64: '9223372036854775807',
      referred: '-9223372036854775808',
      capped: '9223372036854775000',
      cents: '0.50000000000000000000',
      thousands: '12345678901234567000',
      either: '200000000000000000001',
      positive: '0.00000000000000000000000000000000000000000000000001',
    };
    expect(await judge(body)).toMatchObject({ ok: true });
    const bare = Object.entries(body).map(([k, v]) => `"${k}":${v}`);
    expect(received.map((r) => r.body)).toEqual([`{${bare.join(',')}}`]);
  });

  it('is refused past the largest double or nearer to zero than the least, in the words used for such a number in request_body', async () => {
    const large = 'it is past the largest number JSON carries here (about 1.8e308)';
    const small = 'it is nearer to zero than the smallest number JSON carries here (about 5e-324)';
    const digits = `1${'0'.repeat(400)}`;
    await refuses([
      [
        { ratio: '1e400' },
        'request_body.ratio',
        `holds the number 1e400, which cannot be sent exactly: ${large}`,
      ],
      [
        { ratio: '-1e400' },
        'request_body.ratio',
        `holds the number -1e400, which cannot be sent exactly: ${large}`,
      ],
      [
        { count: digits },
        'request_body.count',
        `holds the number ${digits.slice(0, 24)}… (401 characters), which cannot be sent exactly: ${large}`,
      ],
      [
        { positive: '-1e-400' },
        'request_body.positive',
        `holds the number -1e-400, which cannot be sent exactly: ${small}`,
      ],
      [
        { ratio: '1e-400' },
        'request_body.ratio',
        `holds the number 1e-400, which cannot be sent exactly: ${small}`,
      ],
    ]);
    expect(await call('Judge', update('{"ratio":1e400}'))).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining(`which cannot be sent exactly: ${large}`) },
    });
  });

  it('takes a literal of 200,000 digits in time proportional to its length', async () => {
    const zeros = '0'.repeat(200_000);
    await refuses([
      [{ cents: `0.5${zeros}1` }, 'request_body.cents', 'must be a multiple of 0.01'],
      [{ cents: `100.${zeros}1` }, 'request_body.cents', 'must be <= 100'],
      [{ int64: `9${zeros}` }, 'request_body.int64', 'holds the number 9000'],
    ]);
  });

  it('tells two items apart by their literals where uniqueItems is asked for', async () => {
    const other = '12345678901234567892';
    expect(await judge({ ids: [ID, other], rows: [{ id: ID }, { id: other }] })).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual([
      `{"ids":[${ID},${other}],"rows":[{"id":${ID}},{"id":${other}}]}`,
    ]);
    received.length = 0;
    await refuses([
      // Named by the items that are one, not by the first two that share a double.
      [
        { ids: [ID, other, ID] },
        'request_body.ids',
        'must NOT have duplicate items (items ## 2 and 0 are identical)',
      ],
      [
        { ids: ['5', 5] },
        'request_body.ids',
        'must NOT have duplicate items (items ## 1 and 0 are identical)',
      ],
      [{ rows: [{ id: '5' }, { id: 5 }] }, 'request_body.rows', 'must NOT have duplicate items'],
    ]);
  });
});

describe('a string where the schema also takes a string', () => {
  it('stays a string, as given', async () => {
    expect(await judge({ code: 'AB-12', typed: '5' })).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual(['{"code":"AB-12","typed":"5"}']);
  });

  it('is refused with what the string lacks, not as a number', async () => {
    await refuses([
      [{ code: '12345' }, 'request_body.code', 'must match pattern "^[A-Z]{2}-[0-9]+$"'],
      [{ word: '0' }, 'request_body.word', 'must match pattern "^[a-z]+$"'],
      [{ short: '123' }, 'request_body.short', 'must NOT have more than 2 characters'],
      // A member of no type takes a string.
      [{ capless: '5' }, 'request_body.capless', 'must be of type integer'],
    ]);
    for (const body of [{ word: '0' }, { short: '123' }, { code: '12345' }]) {
      const out = (await judge(body)) as { error: { message: string } };
      expect(out.error.message).not.toContain('must be of type string');
    }
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
