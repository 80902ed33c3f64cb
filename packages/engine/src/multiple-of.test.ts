import type { JsonSchema, ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compileSchema } from './ajv-instance.js';
import { type LoopbackEngine, type Received, startLoopbackEngine } from './test-support/loopback-engine.js';

// multipleOf judged on decimals, not by dividing doubles (0.07 / 0.01 is 7.000000000000001).

const cents = { type: 'number', multipleOf: 0.01 } as const;
const line: JsonSchema = { type: 'object', properties: { amount: cents } };

const order: JsonSchema = {
  type: 'object',
  definitions: { Cents: cents },
  properties: {
    price: cents,
    lines: { type: 'array', items: line },
    referred: { $ref: '#/definitions/Cents' },
    nickels: { type: 'number', multipleOf: 0.05 },
    tenths: { type: 'number', multipleOf: 0.1 },
    even: { type: 'integer', multipleOf: 2 },
    thousands: { type: 'integer', multipleOf: 1000 },
  },
  additionalProperties: false,
};

const tools: ToolDeclaration[] = [
  {
    name: 'Order',
    description: 'Place an order.',
    method: 'POST',
    path: '/orders',
    auth: { kind: 'none' },
    body: { kind: 'mode', schema: order },
  },
  {
    name: 'Charge',
    description: 'Charge an amount.',
    method: 'POST',
    path: '/charges',
    auth: { kind: 'none' },
    body: { kind: 'fields' },
    params: [
      { name: 'amount', in: 'body', schema: cents, description: '' },
      { name: 'lines', in: 'body', schema: { type: 'array', items: line }, description: '' },
      { name: 'even', in: 'body', schema: { type: 'integer', multipleOf: 2 }, description: '' },
      { name: 'step', in: 'query', schema: { type: 'number', multipleOf: 0.1 }, description: '' },
    ],
  },
];

const received: Received[] = [];
let loop: LoopbackEngine;
let call: LoopbackEngine['call'];

beforeAll(async () => {
  loop = await startLoopbackEngine('M', tools, received);
  call = loop.call;
});

beforeEach(() => {
  received.length = 0;
});

afterAll(() => loop.close());

const execute = (body: unknown) => ({ mode: 'execute', request_body: body });

/** Each call refused as invalid_argument naming `parameter`, its message holding `says`; nothing sent. */
async function refuses(cases: [string, unknown, string, string][]): Promise<void> {
  for (const [tool, args, parameter, says] of cases) {
    expect(await call(tool, args), JSON.stringify(args)).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', parameter, message: expect.stringContaining(says) },
    });
  }
  expect(received).toEqual([]);
}

describe('multipleOf with a decimal divisor', () => {
  it('takes real numbers that are multiples, as sent, in arguments, nested and in a query', async () => {
    const args = { amount: 0.07, lines: [{ amount: 0.29 }, { amount: 1.15 }], even: 4, step: 0.3 };
    expect(await call('Charge', args)).toMatchObject({ ok: true });
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/charges?step=0.3',
        body: '{"amount":0.07,"lines":[{"amount":0.29},{"amount":1.15}],"even":4}',
      },
    ]);
  });

  it('refuses real numbers that are not, naming the parameter path and the divisor', async () => {
    await refuses([
      ['Charge', { amount: 0.071 }, 'amount', "Parameter 'amount' must be a multiple of 0.01."],
      [
        'Charge',
        { lines: [{ amount: 0.29 }, { amount: 1.155 }] },
        'lines[1].amount',
        "Parameter 'lines[1].amount' must be a multiple of 0.01.",
      ],
      ['Charge', { even: 3 }, 'even', "Parameter 'even' must be a multiple of 2."],
      ['Charge', { step: 0.35 }, 'step', "Parameter 'step' must be a multiple of 0.1."],
    ]);
  });

  it('judges strings standing for numbers on their literals alike', async () => {
    expect(await call('Charge', { amount: '0.07', lines: [{ amount: '1.15' }], even: '4' })).toMatchObject({
      ok: true,
    });
    expect(received.map((r) => r.body)).toEqual(['{"amount":0.07,"lines":[{"amount":1.15}],"even":4}']);
    received.length = 0;
    await refuses([
      ['Charge', { amount: '0.071' }, 'amount', "Parameter 'amount' must be a multiple of 0.01."],
      ['Charge', { amount: '0.07000000000000000001' }, 'amount', 'must be a multiple of 0.01'],
      [
        'Charge',
        { lines: [{ amount: '1.155' }] },
        'lines[0].amount',
        "Parameter 'lines[0].amount' must be a multiple of 0.01.",
      ],
    ]);
  });

  it('takes multiples in request_body, as text or as the object, at every place, sent as written', async () => {
    const text =
      '{"price":0.07,"lines":[{"amount":0.29},{"amount":1.15}],"referred":0.57,"nickels":1.15,' +
      '"tenths":0.3,"even":4503599627370498,"thousands":123456789012345000000}';
    expect(await call('Order', execute(text))).toMatchObject({ ok: true });
    expect(await call('Order', execute(JSON.parse(text)))).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual([text, text]);
  });

  it('refuses in request_body what is not a multiple, naming where and the divisor', async () => {
    const at = (path: string, m: string) =>
      `The request body does not match its schema: request_body.${path} must be a multiple of ${m}.`;
    await refuses([
      ['Order', execute('{"price":0.071}'), 'request_body.price', at('price', '0.01')],
      ['Order', execute({ price: 0.071 }), 'request_body.price', at('price', '0.01')],
      [
        'Order',
        execute('{"lines":[{"amount":0.29},{"amount":1.155}]}'),
        'request_body.lines[1].amount',
        at('lines[1].amount', '0.01'),
      ],
      ['Order', execute('{"referred":0.575}'), 'request_body.referred', at('referred', '0.01')],
      ['Order', execute('{"nickels":1.16}'), 'request_body.nickels', at('nickels', '0.05')],
      ['Order', execute('{"even":9007199254740991}'), 'request_body.even', at('even', '2')],
      ['Order', execute('{"thousands":1e21,"tenths":1e-7}'), 'request_body.tenths', at('tenths', '0.1')],
    ]);
  });

  it('judges a request_body literal with more digits than a double keeps as written', async () => {
    // Its double is 0.07 (a multiple), but the text says a number that is not one.
    const long = '0.07000000000000000001';
    await refuses([
      [
        'Order',
        execute(`{"price":${long}}`),
        'request_body.price',
        'request_body.price must be a multiple of 0.01',
      ],
      [
        'Order',
        execute(`{"lines":[{"amount":1},{"amount":${long}}]}`),
        'request_body.lines[1].amount',
        'request_body.lines[1].amount must be a multiple of 0.01',
      ],
      // A member written twice is the last one, as parsed.
      [
        'Order',
        execute(`{"price":0.07,"price":${long}}`),
        'request_body.price',
        'must be a multiple of 0.01',
      ],
    ]);
    // Zeros past the digits a double keeps are still the number written; so is a member replaced.
    const fine = ['{"price":0.070000000000000000000}', `{"price":${long},"price":0.07}`];
    for (const text of fine) expect(await call('Order', execute(text)), text).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual(['{"price":0.07}', '{"price":0.07}']);
  });
});

describe('the validator', () => {
  it('keeps multipleOf a keyword of numbers only, with a divisor above zero', () => {
    const validate = compileSchema({ multipleOf: 0.01 });
    expect([0.07, 1.15, 0, -0.29, 1e21, 'x', null].map((v) => validate(v))).toEqual(Array(7).fill(true));
    expect([0.071, 1e-7, Number.NaN, Number.POSITIVE_INFINITY].map((v) => validate(v))).toEqual(
      Array(4).fill(false),
    );
    expect(validate.errors).toMatchObject([{ keyword: 'multipleOf', params: { multipleOf: 0.01 } }]);
    expect(() => compileSchema({ multipleOf: 0 })).toThrow(/must be > 0/);
    expect(() => compileSchema({ multipleOf: -0.5 })).toThrow(/must be > 0/);
  });

  it('still takes what dividing doubles took: amounts an embedder computed, large powers of two', () => {
    // 19 * 0.1 is 1.9000000000000001 and 189660 * 0.01 is 1896.6000000000001: no multiples as
    // written, but ajv's division took them, and refusing them now would break working callers.
    const tenths = compileSchema({ multipleOf: 0.1 });
    const cents = compileSchema({ multipleOf: 0.01 });
    expect([tenths(19 * 0.1), cents(189660 * 0.01), compileSchema({ multipleOf: 1024 })(2 ** 70)]).toEqual([
      true,
      true,
      true,
    ]);
    expect(compileSchema({ multipleOf: Number.POSITIVE_INFINITY })(5)).toBe(true);
    expect([tenths(1.95), cents(1896.605)]).toEqual([false, false]);
  });
});
