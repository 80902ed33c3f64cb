import type { ToolDeclaration, ToolSetDefinition } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import type { HttpRequestSpec } from './build-request.js';
import { ToolEngine } from './engine.js';
import type { HttpResponse, HttpSender } from './http-sender.js';
import { ToolRegistry } from './registry.js';
import { MapSecretSource } from './static-auth.js';

// Numbers in a request body go out as given or the call is refused, naming where they are:
// JSON.parse read `1e400` as Infinity (sent as null) and a 23-digit id as the nearest double
// (sent as 1.2345678901234568e+22), and the call answered as a success.

const open = { type: 'object', additionalProperties: true } as const;
const tools: ToolDeclaration[] = [
  {
    name: 'Track',
    description: 'Track an event.',
    method: 'POST',
    path: '/track',
    auth: { kind: 'none' },
    body: { kind: 'mode', schema: open },
  },
  {
    name: 'Update',
    description: 'Update a thing.',
    method: 'PATCH',
    path: '/things',
    auth: { kind: 'none' },
    body: { kind: 'fields' },
    params: [
      { name: 'count', in: 'body', schema: { type: 'number' }, description: '' },
      { name: 'extra', in: 'body', wholeBody: true, schema: open, description: '' },
    ],
  },
];

class RecordingSender implements HttpSender {
  requests: HttpRequestSpec[] = [];
  async send(request: HttpRequestSpec): Promise<HttpResponse> {
    this.requests.push(request);
    return { status: 200, headers: {}, body: { ok: true } };
  }
}

function setUp() {
  const set: ToolSetDefinition = {
    contractVersion: '2.0',
    toolSet: 'T',
    plugin: { name: 'p', version: '1' },
    servers: { default: 'https://api.example.test' },
    tools,
  };
  const sender = new RecordingSender();
  const engine = new ToolEngine(new ToolRegistry([set]), {
    authProviders: [],
    secrets: new MapSecretSource({}),
    http: sender,
  });
  const call = (name: string, args: unknown) => engine.call(`T.${name}`, args, { userId: 'u1' });
  return { sender, call };
}

const track = (body: unknown) => ({ mode: 'execute', request_body: body });

describe('numbers in a request body', () => {
  it('refuses request_body text whose number its parse would change, naming where it is, and sends nothing', async () => {
    const { sender, call } = setUp();
    const big = await call('Track', track('{"id":"a","props":{"n":[1,12345678901234567890123]}}'));
    expect(big).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        parameter: 'request_body.props.n[1]',
        retryable: false,
        message:
          "Parameter 'request_body' holds the number 12345678901234567890123 at request_body.props.n[1], which cannot be sent exactly: it would go out as 1.2345678901234568e+22; from 2^53 (9007199254740992) up a number goes out as its nearest double (pass larger ids as strings).",
      },
    });
    const huge = await call('Track', track('{"revenue":-1e400}'));
    expect(huge).toMatchObject({
      ok: false,
      error: {
        parameter: 'request_body.revenue',
        message: expect.stringMatching(/-1e400 at request_body\.revenue.*would go out as null/),
      },
    });
    // Nearer to zero than a double's least: read as -0, it went out as 0.
    // Its 0 is not told apart from a 0 written (quantity's): named by the parameter alone.
    const tiny = await call('Track', track('{"quantity":0,"revenue":-1e-400}'));
    expect(tiny).toMatchObject({
      ok: false,
      error: {
        parameter: 'request_body',
        message: expect.stringMatching(/-1e-400 at request_body,.*smallest number.*would go out as 0\.$/),
      },
    });
    expect(await call('Track', track('{"revenue":0.000e-400}'))).toMatchObject({ ok: true });
    expect(sender.requests).toHaveLength(1);
  });

  it('refuses text whose number from 2^53 up has a fraction or an exponent and would go out as another number', async () => {
    const { sender, call } = setUp();
    for (const [literal, sent] of [
      ['12345678901234567890.0', '12345678901234567000'],
      ['12345678901234567890e0', '12345678901234567000'],
      ['12345678901234567e0', '12345678901234568'],
      ['9007199254740993.5', '9007199254740994'],
      ['-1.2345678901234567890123e22', '-1.2345678901234568e+22'],
      ['123456789.0123456789e10', '1234567890123456800'],
    ]) {
      const refused = await call('Track', track(`{"a":[${literal}]}`));
      expect(refused, literal).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_argument',
          parameter: 'request_body.a[0]',
          message: expect.stringContaining(
            `the number ${literal} at request_body.a[0], which cannot be sent exactly: it would go out as ${sent};`,
          ),
        },
      });
    }
    expect(sender.requests).toEqual([]);
  });

  it('sends text whose number from 2^53 up goes out as the decimal written, in whatever form', async () => {
    const { sender, call } = setUp();
    const text =
      '{"a":6.02e23,"b":1E+21,"c":12345678901234567000.000,"d":1234567890123456.8e1,"e":100000000000000000000000,"f":-9007199254740992.0,"g":[1.0,1e5,-0,0.1,1E+2,0.30000000000000004,0.1000000000000000055511151231257827]}';
    expect(await call('Track', track(text))).toMatchObject({ ok: true });
    expect(sender.requests[0]!.body).toBe(JSON.stringify(JSON.parse(text)));
    expect(sender.requests[0]!.body).toContain(
      '"a":6.02e+23,"b":1e+21,"c":12345678901234567000,"d":12345678901234568',
    );
  });

  it('sends numbers whose text parses exactly, however long, and digits in strings as they are', async () => {
    const { sender, call } = setUp();
    const text =
      '{"exact":10000000000000000,"fraction":0.1234567890123456789,"small":1e-5,"e":1.5e300,"s":"12345678901234567890123 1e400"}';
    expect(await call('Track', track(text))).toMatchObject({ ok: true });
    expect(JSON.parse(sender.requests[0]!.body!)).toEqual(JSON.parse(text));
  });

  it('refuses a body given as an object, or a body field, holding a number from 2^53 up of more than 15 digits or a number not finite', async () => {
    const { sender, call } = setUp();
    const object = await call('Track', track(JSON.parse('{"ids":[9007199254740993]}')));
    expect(object).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        parameter: 'request_body.ids[0]',
        retryable: false,
        message:
          "Parameter 'request_body' holds the number 9007199254740992 at request_body.ids[0], which cannot be sent exactly: numbers must be finite, and from 2^53 (9007199254740992) up have at most 15 significant digits (pass larger ids as strings).",
      },
    });
    const field = await call('Update', { count: Number.POSITIVE_INFINITY });
    expect(field).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    const whole = await call('Update', { extra: { nested: { n: Number('-12345678901234567890') } } });
    expect(whole).toMatchObject({
      ok: false,
      error: { parameter: 'extra.nested.n', message: expect.stringContaining('-12345678901234567000') },
    });
    expect(sender.requests).toEqual([]);
  });

  it('sends a number given parsed from 2^53 up whose shortest form has at most 15 digits, as JSON writes it', async () => {
    const { sender, call } = setUp();
    const body = { a: 6.02e23, b: 1e21, c: 1.5e300, d: -10000000000000000, e: 123456789012345e10 };
    expect(await call('Track', track(body))).toMatchObject({ ok: true });
    expect(await call('Update', { count: 1e21, extra: { n: -1.5e300 } })).toMatchObject({ ok: true });
    expect(sender.requests.map((r) => r.body)).toEqual([
      '{"a":6.02e+23,"b":1e+21,"c":1.5e+300,"d":-10000000000000000,"e":1.23456789012345e+24}',
      '{"count":1e+21,"n":-1.5e+300}',
    ]);
  });

  it('judges a number of 200,000 digits, most of them zeros, in time proportional to its length', async () => {
    const { sender, call } = setUp();
    const zeros = '0'.repeat(200_000);
    expect(await call('Track', track(`{"a":1${zeros}1e-199980}`))).toMatchObject({
      ok: false,
      error: { parameter: 'request_body.a', message: expect.stringContaining('it would go out as 1e+21;') },
    });
    expect(sender.requests).toEqual([]);
  });

  it('looks through a body of 200,000 rows, given as an object or as text, and names the row at fault', async () => {
    const { sender, call } = setUp();
    const rows = Array.from({ length: 200_000 }, (_, i) => i);
    expect(await call('Track', track({ rows }))).toMatchObject({ ok: true });
    const text = `{"rows":[${rows.join(',')},12345678901234567890]}`;
    expect(await call('Track', track(text))).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', parameter: 'request_body.rows[200000]' },
    });
    expect(sender.requests).toHaveLength(1);
  });
});
