import type { ToolDeclaration, ToolOutcome } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { inlinePlugin } from './support.js';

// Arguments an embedder builds in JavaScript, not parsed from JSON: each must be refused with
// invalid_argument naming the parameter at fault, and nothing sent; or, read once, sent as checked.

const createThing: ToolDeclaration = {
  name: 'CreateThing',
  description: 'Create a thing.',
  method: 'POST',
  path: '/things',
  auth: { kind: 'none' },
  body: {
    kind: 'mode',
    schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  },
};
const getThing: ToolDeclaration = {
  name: 'GetThing',
  description: 'Get a thing.',
  method: 'GET',
  path: '/things/{id}',
  auth: { kind: 'none' },
  params: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Thing id.' }],
};

let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { toolSets: { ThingApi: { baseUrl: upstream.url } } },
    { plugins: [inlinePlugin('ThingApi', [createThing, getThing])] },
  );
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const execute = (body: unknown) => ({ mode: 'execute', request_body: body });
const refusal = (o: ToolOutcome) => (o.ok ? undefined : { code: o.error.code, parameter: o.error.parameter });

describe('arguments an embedder builds', () => {
  it.each([
    // JSON.parse makes `__proto__` an own key, never the copy's prototype: the `id` inside is not given.
    ['a __proto__ key holding the parameters', JSON.parse('{"__proto__":{"id":"abc"}}'), 'id'],
    [
      'a getter that throws',
      {
        get id(): string {
          throw new Error('not loaded');
        },
      },
      'id',
    ],
    [
      'a Proxy whose traps throw',
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('revoked');
          },
        },
      ),
      'arguments',
    ],
  ])('refuses %s, naming it, and sends nothing', async (_what, args, parameter) => {
    const outcome = await host.callTool('ThingApi.GetThing', args);
    expect(refusal(outcome)).toEqual({ code: 'invalid_argument', parameter });
    expect(upstream.requests).toHaveLength(0);
  });

  it.each([
    ['a BigInt in an array', { name: 'a', sizes: [1n] }, 'request_body.sizes[0]', 'BigInt'],
    ['a function', { name: 'a', done() {} }, 'request_body.done', 'function'],
    ['a Symbol', { name: 'a', tag: Symbol('t') }, 'request_body.tag', 'symbol'],
    ['a Map', { name: 'a', m: new Map([['k', 1]]) }, 'request_body.m', 'Map'],
    ['a Buffer', { name: 'a', bytes: Buffer.from('ab') }, 'request_body.bytes', 'Uint8Array'],
    [
      'a toJSON that throws',
      {
        name: 'a',
        x: {
          toJSON: () => {
            throw new Error('x');
          },
        },
      },
      'request_body.x',
      'could not be read',
    ],
    [
      'a getter that throws',
      {
        name: 'a',
        get x() {
          throw new Error('x');
        },
      },
      'request_body.x',
      'could not be read',
    ],
  ])(
    'refuses a body holding %s, naming its path, and sends nothing',
    async (_what, body, parameter, says) => {
      const outcome = await host.callTool('ThingApi.CreateThing', execute(body));
      expect(refusal(outcome)).toEqual({ code: 'invalid_argument', parameter });
      expect(outcome.ok ? '' : outcome.error.message).toContain(says);
      expect(upstream.requests).toHaveLength(0);
    },
  );

  it("reads a write call's arguments once, keyed or not: write safety copies them, the engine takes that copy", async () => {
    for (const options of [{}, { idempotencyKey: 'k-read-once' }]) {
      upstream.reset();
      let reads = 0;
      const args = {
        mode: 'execute',
        get request_body(): object {
          reads += 1;
          return { name: `read-${reads}` };
        },
      };
      const outcome = await host.callTool('ThingApi.CreateThing', args, options);
      expect(outcome.ok).toBe(true);
      expect(reads).toBe(1);
      expect(upstream.requests.map((r) => r.body)).toEqual([{ name: 'read-1' }]);
    }
  });

  it('reads each value once: what is checked is what is sent', async () => {
    let reads = 0;
    const body = {
      get name(): string {
        reads += 1;
        return `read-${reads}`;
      },
    };
    const outcome = await host.callTool('ThingApi.CreateThing', execute(body));
    expect(outcome.ok).toBe(true);
    expect(reads).toBe(1);
    expect(upstream.requests.map((r) => r.body)).toEqual([{ name: 'read-1' }]);
  });
});

describe('more arguments than the tool has parameters', () => {
  it('are refused for a write tool before write safety copies them, its key still checked first', async () => {
    const args: Record<string, unknown> = { mode: 'execute' };
    for (let i = 0; i < 100_000; i += 1) args[`k${i}`] = i;
    const outcome = await host.callTool('ThingApi.CreateThing', args, { idempotencyKey: 'many-keys-1' });
    expect(refusal(outcome)).toEqual({ code: 'invalid_argument', parameter: 'request_body' });
    expect(outcome.ok ? '' : outcome.error.message).toMatch(
      /and 99992 more unknown \(accepted: mode, request_body\)/,
    );
    const badKey = await host.callTool('ThingApi.CreateThing', args, { idempotencyKey: '' });
    expect(refusal(badKey)).toMatchObject({ parameter: 'idempotencyKey' });
    expect(upstream.requests).toHaveLength(0);
  });

  it.each([
    [
      'a write tool',
      'ThingApi.CreateThing',
      { ...execute('{"name":"x"}'), note: undefined, more: undefined },
    ],
    ['a read tool', 'ThingApi.GetThing', { id: 'abc', note: undefined, more: undefined }],
  ])('are not counted where they hold undefined (%s): the call is sent', async (_what, tool, args) => {
    const outcome = await host.callTool(tool, args);
    expect(outcome.ok).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });
});
