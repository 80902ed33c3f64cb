import type { JsonSchema, ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compileSchema } from './ajv-instance.js';
import { decimalOf, isMultipleOf } from './exact-decimal.js';
import { divides, divisorOf, multipleOfTest } from './multiple-of.js';
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
      {
        name: 'either',
        in: 'body',
        schema: {
          anyOf: [
            { type: 'number', multipleOf: 0.1 },
            { type: 'number', maximum: 1 },
          ],
        },
        description: '',
      },
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

describe('multipleOf on a number written as a string', () => {
  // 189660 * 0.01 is 1896.6000000000001: no multiple of 0.1 or 0.01 as written, but the
  // division of its double is an integer (18966, 189660), which ajv took, and still takes for
  // a number. A string says its digits, so it is judged on them alone.
  const computed = '1896.6000000000001';

  it('refuses one that only the division of its double takes, naming the parameter and the divisor; nothing is sent', async () => {
    await refuses([
      ['Charge', { step: computed }, 'step', "Parameter 'step' must be a multiple of 0.1."],
      ['Charge', { amount: computed }, 'amount', "Parameter 'amount' must be a multiple of 0.01."],
      [
        'Charge',
        { lines: [{ amount: '0.29' }, { amount: computed }] },
        'lines[1].amount',
        "Parameter 'lines[1].amount' must be a multiple of 0.01.",
      ],
      [
        'Order',
        execute({ tenths: computed }),
        'request_body.tenths',
        'The request body does not match its schema: request_body.tenths must be a multiple of 0.1.',
      ],
      [
        'Order',
        execute(`{"lines":[{"amount":"${computed}"}]}`),
        'request_body.lines[0].amount',
        'request_body.lines[0].amount must be a multiple of 0.01.',
      ],
    ]);
  });

  it('names it beside the other problems of a call refused for them too', async () => {
    expect(await call('Charge', { even: 3, step: computed })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: "Parameter 'even' must be a multiple of 2. Parameter 'step' must be a multiple of 0.1.",
      },
    });
    expect(received).toEqual([]);
  });

  it('still takes the same amount as a number, in arguments, in a query and in request_body', async () => {
    const amount = 189660 * 0.01;
    expect(String(amount)).toBe(computed);
    expect(await call('Charge', { amount, step: 19 * 0.1 })).toMatchObject({ ok: true });
    expect(await call('Order', execute({ tenths: amount, price: amount }))).toMatchObject({ ok: true });
    expect(await call('Order', execute(`{"tenths":${computed}}`))).toMatchObject({ ok: true });
    expect(received.map((r) => [r.url, r.body])).toEqual([
      ['/charges?step=1.9000000000000001', `{"amount":${computed}}`],
      ['/orders', `{"tenths":${computed},"price":${computed}}`],
      ['/orders', `{"tenths":${computed}}`],
    ]);
  });

  it('takes one that is a multiple as written, and sends it bare', async () => {
    expect(await call('Charge', { amount: '1896.6', step: '1896.6' })).toMatchObject({ ok: true });
    expect(received.map((r) => [r.url, r.body])).toEqual([['/charges?step=1896.6', '{"amount":1896.6}']]);
  });

  it('takes one that another branch of an anyOf takes, where the division took no part', async () => {
    // 0.35 is no multiple of 0.1 either way, but at most 1.
    expect(await call('Charge', { either: '0.35' })).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual(['{"either":0.35}']);
    received.length = 0;
    await refuses([
      ['Charge', { either: '1.35' }, 'either', "Parameter 'either' matches none of the 2 allowed shapes"],
    ]);
  });

  it('judges a branch by the division, as for numbers: which branches bind the place is not known', async () => {
    // 0.7000000000000001 is at most 1 (the other branch), and 1896.6000000000001 passes the
    // first by the division; as written in one schema alone (`step`) it is refused.
    expect(await call('Charge', { either: '0.7000000000000001' })).toMatchObject({ ok: true });
    expect(await call('Charge', { either: computed })).toMatchObject({ ok: true });
    expect(received.map((r) => r.body)).toEqual([`{"either":0.7000000000000001}`, `{"either":${computed}}`]);
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

describe('the quick paths', () => {
  /** The verdict as judged before them, for every number: ajv's division, else the exact decimal. */
  function judgedBefore(n: number, m: number): boolean {
    const quotient = n / m;
    if (quotient === Number.parseInt(String(quotient), 10)) return true;
    const divisor = divisorOf(m);
    return divisor !== undefined && Number.isFinite(n) && isMultipleOf(decimalOf(String(n)), divisor);
  }

  // Integer divisors (the remainder), powers of ten (the written decimal), the rest (the exact
  // decimal), an integer divisor past 2^53, and one no number divides but zero (Infinity).
  const divisors = [
    1,
    2,
    7,
    1000,
    1024,
    2 ** 53 - 1,
    2 ** 53 + 2,
    0.01,
    0.1,
    0.001,
    1e-7,
    1e-300,
    1e16,
    1e21,
    0.25,
    0.3,
    0.05,
    1.5,
    0.07,
    3e-7,
    Number.POSITIVE_INFINITY,
  ];

  /** Deterministic numbers of every kind: steps of each divisor, cents, huge and tiny, bits at random. */
  function numbers(): number[] {
    let seed = 0x2545f491;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const out = [0, -0, Number.NaN, Number.POSITIVE_INFINITY, -Number.POSITIVE_INFINITY, Number.MIN_VALUE];
    out.push(
      Number.MAX_VALUE,
      Number.MAX_SAFE_INTEGER,
      2 ** 53,
      2 ** 53 + 2,
      2 ** 60,
      2 ** 70,
      2 ** 80,
      1e21,
    );
    out.push(1e21 - 2 ** 17, 1e300, 7e300, 1e-7, 3e-7, 1.5e-7, 19 * 0.1, 189660 * 0.01);
    // A multiple's neighbours, a double apart: 17 digits written, or a multiple's 16 a double reads back as.
    const beside = (x: number, by: bigint) => {
      const bits = new DataView(new ArrayBuffer(8));
      bits.setFloat64(0, x);
      bits.setBigUint64(0, bits.getBigUint64(0) + by);
      return bits.getFloat64(0);
    };
    for (const step of [0.01, 0.1, 1e-7, 0.25, 0.3, 7, 0.05, 1024]) {
      for (let k = -200; k <= 200; k++) {
        const x = k * step;
        out.push(x, (k + 0.5) * step, Number(x.toPrecision(15)));
        if (x !== 0) out.push(beside(x, 1n), beside(x, -1n), beside(x, 3n));
      }
    }
    for (let k = -1000; k <= 1000; k++) out.push(k / 100, k / 1000);
    // Around where a scaled amount is too large to tell by (2^49).
    for (let k = -200; k <= 200; k++) out.push((2 ** 49 + k) / 100, (2 ** 49 + k) / 1e7);
    for (let i = 0; i < 1000; i++) {
      out.push(Math.round(random() * 1e6) / 100, Math.round((random() - 0.5) * 2 ** 54));
      out.push(Math.round(random() * 1e12) * 10 ** Math.round(random() * 40 - 20));
      const bits = new DataView(new ArrayBuffer(8));
      bits.setUint32(0, random() * 2 ** 32);
      bits.setUint32(4, random() * 2 ** 32);
      out.push(bits.getFloat64(0));
    }
    return out;
  }

  it('reach the verdict the division and the exact decimal reached, for every kind of number and divisor', () => {
    const values = numbers();
    let multiples = 0;
    for (const m of divisors) {
      const test = multipleOfTest(m);
      for (const n of values) {
        const before = judgedBefore(n, m);
        if (test(n) !== before) expect({ n, m, now: test(n) }).toEqual({ n, m, now: before });
        if (before) multiples++;
      }
    }
    // Both verdicts were met many times over, or the comparison proves little.
    expect(multiples).toBeGreaterThan(20_000);
    expect(values.length * divisors.length - multiples).toBeGreaterThan(20_000);
  });

  it('take ajv’s division exactly as ajv wrote it, parseInt of the quotient and all', () => {
    for (const n of numbers()) {
      for (const m of divisors) {
        const q = n / m;
        if (divides(n, m) !== (q === Number.parseInt(String(q), 10))) expect({ n, m }).toBe('divided alike');
      }
    }
  });

  it('keep the verdicts on the edges', () => {
    const verdicts: [number, number, boolean][] = [
      // Huge: the division takes any integer quotient below 1e21, the decimal the rest.
      [2 ** 70, 1024, true],
      [1e21, 1, true],
      [1e21, 0.25, true],
      [2 ** 60, 7, true],
      [1e300, 7, false],
      [7e300, 7, true],
      [Number.MAX_VALUE, 0.01, true],
      [Number.MAX_SAFE_INTEGER, 7, false],
      [2 ** 53 + 2, 3, false],
      // Steps of 1e-7, and numbers below them.
      [3e-7, 1e-7, true],
      [7 * 1e-7, 1e-7, true],
      [1.5e-7, 1e-7, false],
      [Number.MIN_VALUE, 1e-7, false],
      // Negative, zero.
      [-0.07, 0.01, true],
      [-0.071, 0.01, false],
      [-0.3, 0.1, true],
      [-49, 7, true],
      [-50, 7, false],
      [0, 0.3, true],
      [-0, 7, true],
      // Divisors that are no power of ten.
      [0.75, 0.25, true],
      [0.7, 0.25, false],
      [0.9, 0.3, true],
      [0.1, 0.3, false],
      [49, 7, true],
      [49.5, 7, false],
      // Computed amounts ajv's division took, and what no divisor takes.
      [19 * 0.1, 0.1, true],
      [189660 * 0.01, 0.01, true],
      [Number.NaN, 0.01, false],
      [Number.POSITIVE_INFINITY, 7, false],
    ];
    for (const [n, m, verdict] of verdicts) {
      expect({ n, m, test: multipleOfTest(m)(n), validator: compileSchema({ multipleOf: m })(n) }).toEqual({
        n,
        m,
        test: verdict,
        validator: verdict,
      });
      expect(judgedBefore(n, m)).toBe(verdict);
    }
  });
});
