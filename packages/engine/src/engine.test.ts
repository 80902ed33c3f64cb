import {
  type AuthProvider,
  type CallWaitListener,
  type CredentialResult,
  type ToolDeclaration,
  ToolError,
  type ToolSetDefinition,
  type TrafficPolicy,
} from '@toolhost/core';
import { describe, expect, it, vi } from 'vitest';
import type { HttpRequestSpec } from './build-request.js';
import { type EngineOptions, ToolEngine } from './engine.js';
import type { HttpResponse, HttpSender } from './http-sender.js';
import type { PacerFactory } from './pacer.js';
import { ToolRegistry } from './registry.js';
import { MapSecretSource, StaticTokenAuthProvider } from './static-auth.js';

const tools: ToolDeclaration[] = [
  {
    name: 'Get',
    description: 'get',
    method: 'GET',
    path: '/things/{id}',
    auth: { kind: 'provider', provider: 'p', scopes: ['s.read'] },
    params: [
      {
        name: 'thing',
        in: 'path',
        apiName: 'id',
        required: true,
        schema: { type: 'string' },
        description: '',
      },
    ],
  },
  {
    name: 'Send',
    description: 'send',
    method: 'POST',
    path: '/send/{id}',
    auth: { kind: 'secret', secret: 'API_KEY', scheme: 'basic-username' },
    body: {
      kind: 'mode',
      schema: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } },
    },
    params: [
      {
        name: 'target',
        in: 'path',
        apiName: 'id',
        executeOnly: 'required',
        schema: { type: 'string' },
        description: '',
      },
      {
        name: 'strict',
        in: 'header',
        apiName: 'X-Strict',
        executeOnly: 'optional',
        apiValues: { True: '1' },
        schema: { type: 'string' },
        description: '',
      },
    ],
  },
];

class FakeSender implements HttpSender {
  requests: HttpRequestSpec[] = [];
  constructor(private readonly answers: HttpResponse[] = []) {}
  async send(request: HttpRequestSpec): Promise<HttpResponse> {
    this.requests.push(structuredClone(request));
    return this.answers.shift() ?? { status: 200, headers: {}, body: { ok: true } };
  }
}

function engine(opts: {
  sender?: HttpSender;
  providers?: AuthProvider[];
  secrets?: Record<string, string>;
  traffic?: TrafficPolicy;
  pacer?: PacerFactory;
  options?: EngineOptions;
}) {
  const set: ToolSetDefinition = {
    contractVersion: '2.0',
    toolSet: 'T',
    plugin: { name: 'p', version: '1' },
    servers: { default: 'https://api.example.test/v1' },
    tools,
    traffic: opts.traffic,
  };
  return new ToolEngine(
    new ToolRegistry([set]),
    {
      authProviders: opts.providers ?? [new StaticTokenAuthProvider('p', 'tok')],
      secrets: new MapSecretSource(opts.secrets ?? {}),
      http: opts.sender ?? new FakeSender(),
      ...(opts.pacer ? { pacer: opts.pacer } : {}),
    },
    opts.options,
  );
}

const ctx = { userId: 'u1' };

describe('ToolEngine', () => {
  it('answers get_request_schema without credentials or network', async () => {
    const sender = new FakeSender();
    const e = engine({ sender, secrets: {} });
    const out = await e.call('T.Send', { mode: 'get_request_schema' }, ctx);
    expect(out).toEqual({
      ok: true,
      kind: 'schema',
      schema: (tools[1]!.body as { schema: unknown }).schema,
    });
    expect(sender.requests).toHaveLength(0);
  });

  it('sends bearer credentials from the provider for the user and scopes', async () => {
    const getCredentials = vi.fn(async (): Promise<CredentialResult> => ({ kind: 'bearer', token: 'abc' }));
    const sender = new FakeSender();
    const out = await engine({ sender, providers: [{ id: 'p', getCredentials }] }).call(
      'T.Get',
      { thing: 'x' },
      ctx,
    );
    expect(out).toEqual({ ok: true, kind: 'response', status: 200, body: { ok: true } });
    expect(getCredentials).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'u1', scopes: ['s.read'] }),
    );
    expect(sender.requests[0]).toMatchObject({ method: 'GET', url: 'https://api.example.test/v1/things/x' });
    expect(sender.requests[0]!.headers.authorization).toBe('Bearer abc');
  });

  it('sends a secret as HTTP basic user name with an empty password and maps header values', async () => {
    const sender = new FakeSender();
    const e = engine({ sender, secrets: { API_KEY: 'k1' } });
    await e.call('T.Send', { mode: 'execute', target: 'a', strict: 'True', request_body: '{"a":1}' }, ctx);
    await e.call('T.Send', { mode: 'execute', target: 'a', strict: 'yes', request_body: '{"a":1}' }, ctx);
    expect(sender.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('k1:').toString('base64')}`);
    expect(sender.requests[0]!.headers['x-strict']).toBe('1');
    expect(sender.requests[1]!.headers).not.toHaveProperty('x-strict');
    expect(sender.requests[0]!.body).toBe('{"a":1}');
  });

  it('reports a missing secret by name and sends nothing', async () => {
    const sender = new FakeSender();
    const out = await engine({ sender }).call(
      'T.Send',
      { mode: 'execute', target: 'a', request_body: '{"a":1}' },
      ctx,
    );
    expect(out).toMatchObject({
      ok: false,
      error: { code: 'missing_secret', message: expect.stringContaining('API_KEY') },
    });
    expect(sender.requests).toHaveLength(0);
  });

  it('returns authorization_required with the provider and scopes', async () => {
    const provider: AuthProvider = {
      id: 'p',
      getCredentials: async () => ({
        kind: 'authorization_required',
        url: 'https://auth.example.test/authorize?x=1',
      }),
    };
    const out = await engine({ providers: [provider] }).call('T.Get', { thing: 'x' }, ctx);
    expect(out).toMatchObject({
      ok: false,
      error: {
        code: 'authorization_required',
        authorization: { provider: 'p', scopes: ['s.read'], url: 'https://auth.example.test/authorize?x=1' },
        // Calling again unchanged cannot succeed until a person authorizes.
        retryable: false,
      },
    });
  });

  it('says which credential the upstream rejected on a 401, and what a 403 means', async () => {
    const sender = new FakeSender([
      { status: 401, headers: {}, body: null },
      { status: 403, headers: {}, body: null },
    ]);
    const e = engine({ sender, secrets: { API_KEY: 'k1' } });
    const rejected = await e.call('T.Send', { mode: 'execute', target: 'a', request_body: '{"a":1}' }, ctx);
    expect(rejected).toMatchObject({
      ok: false,
      error: {
        code: 'upstream_error',
        status: 401,
        retryable: false,
        message:
          'The upstream answered HTTP 401: the upstream rejected the secret API_KEY (wrong, expired or revoked).',
      },
    });
    const refused = await e.call('T.Get', { thing: 'x' }, ctx);
    expect(refused.ok ? '' : refused.error.message).toBe(
      'The upstream answered HTTP 403: the upstream accepted the token of auth provider p but refused this request (a missing scope or permission).',
    );
  });

  it('names where a static token was set when the upstream refuses it, never its value', async () => {
    const sender = new FakeSender([
      { status: 401, headers: {}, body: null },
      { status: 403, headers: {}, body: null },
    ]);
    const providers = [new StaticTokenAuthProvider('p', 'pat-na1-0042', 'set P_TOKEN', 'P_TOKEN')];
    const e = engine({ sender, providers });
    const rejected = await e.call('T.Get', { thing: 'x' }, ctx);
    expect(rejected.ok ? '' : rejected.error.message).toBe(
      'The upstream answered HTTP 401: the upstream rejected the token of auth provider p set in P_TOKEN (wrong, expired or revoked).',
    );
    const refused = await e.call('T.Get', { thing: 'x' }, ctx);
    expect(refused.ok ? '' : refused.error.message).toBe(
      'The upstream answered HTTP 403: the upstream accepted the token of auth provider p set in P_TOKEN but refused this request (a missing scope or permission).',
    );
    expect(JSON.stringify([rejected, refused])).not.toContain('pat-na1-0042');
    expect(sender.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer pat-na1-0042',
      'Bearer pat-na1-0042',
    ]);
  });

  it('names where a token was set for any provider that says so, one wrapping another too', async () => {
    const sender = new FakeSender([
      { status: 401, headers: {}, body: null },
      { status: 401, headers: {}, body: null },
      { status: 401, headers: {}, body: null },
    ]);
    const inner = new StaticTokenAuthProvider('p', 'pat-na1-0042', 'set P_TOKEN', 'P_TOKEN');
    // An embedder's provider around the static one (to log, say): not a StaticTokenAuthProvider.
    const wrapped: AuthProvider = {
      id: 'p',
      source: inner.source,
      getCredentials: (request) => inner.getCredentials(request),
    };
    const vault: AuthProvider = {
      id: 'p',
      source: 'the vault entry crm/token',
      getCredentials: async () => ({ kind: 'bearer', token: 'vault-token-1' }),
    };
    // One whose source someone else wrote: shown escaped and bounded, as a caller's text is.
    const odd: AuthProvider = { ...vault, source: `vault\r\u202e${'x'.repeat(10_000)}` };
    const messages: string[] = [];
    for (const provider of [wrapped, vault, odd]) {
      const out = await engine({ sender, providers: [provider] }).call('T.Get', { thing: 'x' }, ctx);
      messages.push(out.ok ? '' : out.error.message);
    }
    expect(messages).toEqual([
      'The upstream answered HTTP 401: the upstream rejected the token of auth provider p set in P_TOKEN (wrong, expired or revoked).',
      'The upstream answered HTTP 401: the upstream rejected the token of auth provider p set in the vault entry crm/token (wrong, expired or revoked).',
      `The upstream answered HTTP 401: the upstream rejected the token of auth provider p set in vault\\r\\u202e${'x'.repeat(193)}… (wrong, expired or revoked).`,
    ]);
    expect(sender.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer pat-na1-0042',
      'Bearer vault-token-1',
      'Bearer vault-token-1',
    ]);
  });

  it('retries once with a renewed credential after a 401', async () => {
    const sender = new FakeSender([{ status: 401, headers: {}, body: null }]);
    const onUnauthorized = vi.fn(async (): Promise<CredentialResult> => ({ kind: 'bearer', token: 'fresh' }));
    const provider: AuthProvider = {
      id: 'p',
      getCredentials: async () => ({ kind: 'bearer', token: 'stale' }),
      onUnauthorized,
    };
    const out = await engine({ sender, providers: [provider] }).call('T.Get', { thing: 'x' }, ctx);
    expect(out.ok).toBe(true);
    expect(onUnauthorized).toHaveBeenCalledOnce();
    expect(sender.requests.map((r) => r.headers.authorization)).toEqual(['Bearer stale', 'Bearer fresh']);
  });

  it('waits as asked and retries once on 429 when the tool set allows it', async () => {
    const sender = new FakeSender([{ status: 429, headers: { 'retry-after': '0' }, body: null }]);
    const e = engine({
      sender,
      traffic: { retryOnRateLimit: { defaultWaitSeconds: 30, maxWaitSeconds: 1 } },
    });
    const out = await e.call('T.Get', { thing: 'x' }, ctx);
    expect(out.ok).toBe(true);
    expect(sender.requests).toHaveLength(2);
  });

  it('does not retry a 429 whose wait exceeds the limit', async () => {
    const sender = new FakeSender([{ status: 429, headers: { 'retry-after': '120' }, body: { m: 'x' } }]);
    const e = engine({
      sender,
      traffic: { retryOnRateLimit: { defaultWaitSeconds: 30, maxWaitSeconds: 1 } },
    });
    const out = await e.call('T.Get', { thing: 'x' }, ctx);
    expect(out).toMatchObject({
      ok: false,
      error: { code: 'upstream_rate_limited', retryAfterSeconds: 120 },
    });
    expect(sender.requests).toHaveLength(1);
  });

  it('turns an unexpected failure into internal_error without leaking details', async () => {
    const sender: HttpSender = {
      send: async () => {
        throw new Error('secret stuff tok');
      },
    };
    const seen: unknown[] = [];
    const e = engine({
      sender,
      options: { onUnexpectedError: (err, tool) => seen.push([(err as Error).message, tool]) },
    });
    const out = await e.call('T.Get', { thing: 'x' }, ctx);
    expect(out).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(seen).toEqual([['secret stuff tok', 'T.Get']]);
    expect(JSON.stringify(out)).not.toContain('secret stuff');
  });

  it('paces through the given pacer factory, keyed by the policy parameter, once the sender is loaded', async () => {
    const order: string[] = [];
    const made: [string, number][] = [];
    const sender: HttpSender = {
      warm: async () => {
        order.push('warm');
      },
      send: async () => {
        order.push('send');
        return { status: 200, headers: {}, body: {} };
      },
    };
    const e = engine({
      sender,
      traffic: { pacing: { key: 'id', requestsPerSecond: 7 } },
      pacer: (toolSet, perSecond) => {
        made.push([toolSet, perSecond]);
        return {
          wait: async (key) => {
            order.push(`pace ${key}`);
            return 0;
          },
        };
      },
    });
    await e.call('T.Get', { thing: 'a' }, ctx);
    await e.call('T.Get', { thing: 'b' }, ctx);
    expect(made).toEqual([['T', 7]]);
    expect(order).toEqual(['warm', 'pace a', 'send', 'warm', 'pace b', 'send']);
  });

  it("tells the pacer when each request left: after a wait for the upstream's slot, or when its send ended", async () => {
    const events: string[] = [];
    const held: (() => void)[] = [];
    // A sender that says when it writes, and holds each answer until released.
    const sender: HttpSender = {
      send: async (request, options) => {
        const name = new URL(request.url).searchParams.get('thing') ?? new URL(request.url).pathname;
        events.push(`send ${name}`);
        options.onDeparture?.();
        await new Promise<void>((r) => held.push(r));
        return { status: 200, headers: {}, body: {} };
      },
    };
    const e = engine({
      sender,
      traffic: { pacing: { key: 'id', requestsPerSecond: 100 } },
      pacer: () => ({
        wait: async (key, _signal, departed) => {
          events.push(`turn ${key}`);
          void departed?.then(() => events.push(`left ${key}`));
          return 0;
        },
      }),
      options: { maxConcurrentRequestsPerUpstream: 1 },
    });
    const first = e.call('T.Get', { thing: 'a' }, ctx);
    const second = e.call('T.Get', { thing: 'b' }, ctx);
    const settle = async () => {
      for (let i = 0; i < 10; i += 1) await new Promise((r) => setImmediate(r));
    };
    await settle();
    // b had its turn, but waits for the one slot: it has not left.
    expect(events).toEqual(['turn a', 'turn b', 'send /v1/things/a', 'left a']);
    held.shift()!();
    await settle();
    expect(events.slice(4)).toEqual(['send /v1/things/b', 'left b']);
    held.shift()!();
    await Promise.all([first, second]);

    // A sender that never says (one of a host's own): the request counts as left when its send ended.
    events.length = 0;
    const quiet = engine({
      sender: new FakeSender(),
      traffic: { pacing: { key: 'id', requestsPerSecond: 100 } },
      pacer: () => ({
        wait: async (key, _signal, departed) => {
          void departed?.then(() => events.push(`left ${key}`));
          return 0;
        },
      }),
    });
    await quiet.call('T.Get', { thing: 'c' }, ctx);
    await settle();
    expect(events).toEqual(['left c']);
  });

  it('paces per connection: per user by default, one bucket for a shared token or an account the provider names', async () => {
    const keys: string[] = [];
    const made: string[] = [];
    const pacer: PacerFactory = (name) => {
      made.push(name);
      return {
        wait: async (key) => {
          keys.push(key);
          return 0;
        },
      };
    };
    const traffic: TrafficPolicy = { pacing: { per: 'connection', requestsPerSecond: 9 } };
    const perUser: AuthProvider = {
      id: 'p',
      getCredentials: async (r) => ({ kind: 'bearer', token: `token-of-${r.userId}` }),
    };
    const oneAccount: AuthProvider = {
      id: 'p',
      getCredentials: async (r) => ({ kind: 'bearer', token: `token-of-${r.userId}`, connection: 'acct-9' }),
    };
    for (const providers of [[perUser], [new StaticTokenAuthProvider('p', 'tok')], [oneAccount]]) {
      const e = engine({ providers, traffic, pacer });
      await e.call('T.Get', { thing: 'a' }, { userId: 'u1' });
      await e.call('T.Get', { thing: 'b' }, { userId: 'u2' });
    }
    expect(keys).toEqual(['p:u1', 'p:u2', 'p:static', 'p:static', 'p:acct-9', 'p:acct-9']);
    // Not the tool set's pacer: every tool set paced per connection at this rate shares it.
    expect(made).toEqual(['connection@9', 'connection@9', 'connection@9']);

    // A secret's calls share one bucket per value, named without the secret.
    const e = engine({ secrets: { API_KEY: 'k-123-secret' }, traffic, pacer });
    keys.length = 0;
    await e.call('T.Send', { mode: 'execute', target: 'x', request_body: '{"a":1}' }, { userId: 'u1' });
    await e.call('T.Send', { mode: 'execute', target: 'y', request_body: '{"a":1}' }, { userId: 'u2' });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]).toMatch(/^secret:API_KEY:/);
    expect(keys[0]).not.toContain('k-123-secret');
  });

  it('reports each upstream answer and each rate-limit wait to the observer, with the call context', async () => {
    const sender = new FakeSender([
      { status: 429, headers: { 'retry-after': '0' }, body: null },
      { status: 201, headers: {}, body: {} },
    ]);
    const reports: unknown[] = [];
    const e = engine({
      sender,
      traffic: {
        pacing: { key: 'id', requestsPerSecond: 5 },
        retryOnRateLimit: { defaultWaitSeconds: 1, maxWaitSeconds: 1 },
      },
      // A pacer that says it held the first request back 40 ms.
      pacer: () => {
        const waits = [40, 0];
        return { wait: async () => waits.shift() ?? 0 };
      },
      options: {
        observer: {
          upstreamResponse: (context, tool, status, ms) =>
            reports.push(['upstream', context, tool.name, status, typeof ms === 'number' && ms >= 0]),
          rateLimitWait: (context, tool, kind, ms) => reports.push(['wait', context, tool.name, kind, ms]),
        },
      },
    });
    const context = { userId: 'u1' };
    const out = await e.call('T.Get', { thing: 'a' }, context);
    expect(out).toMatchObject({ ok: true, status: 201 });
    expect(reports).toEqual([
      ['wait', context, 'T.Get', 'pacing', 40],
      ['upstream', context, 'T.Get', 429, true],
      ['wait', context, 'T.Get', 'retry_after', 0],
      ['upstream', context, 'T.Get', 201, true],
    ]);
  });

  it('reports each retry of a 5xx to the observer before its backoff, with the attempt it makes', async () => {
    const sender = new FakeSender([
      { status: 503, headers: {}, body: null },
      { status: 502, headers: {}, body: null },
      { status: 200, headers: {}, body: {} },
    ]);
    const retries: unknown[] = [];
    const e = engine({
      sender,
      options: {
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
        observer: { retry: (context, tool, retry) => retries.push([context, tool.name, retry]) },
      },
    });
    const context = { userId: 'u1' };
    expect(await e.call('T.Get', { thing: 'a' }, context)).toMatchObject({ ok: true, status: 200 });
    expect(retries).toEqual([
      [context, 'T.Get', { attempt: 2, maxAttempts: 3, delayMs: expect.any(Number), status: 503 }],
      [context, 'T.Get', { attempt: 3, maxAttempts: 3, delayMs: expect.any(Number), status: 502 }],
    ]);
  });

  it("tells the call's wait listener of each wait as it starts and as it ends", async () => {
    const sender = new FakeSender([
      { status: 429, headers: { 'retry-after': '0' }, body: null },
      { status: 200, headers: {}, body: {} },
    ]);
    const e = engine({
      sender,
      traffic: {
        pacing: { key: 'id', requestsPerSecond: 5 },
        retryOnRateLimit: { defaultWaitSeconds: 1, maxWaitSeconds: 1 },
      },
    });
    const events: string[] = [];
    const onWait = (reason: string, ms: number | undefined) => {
      events.push(`start ${reason} ${ms}`);
      return (waited?: number) => events.push(`end ${reason} ${typeof waited}`);
    };
    expect(await e.call('T.Get', { thing: 'a' }, { userId: 'u1', onWait })).toMatchObject({ ok: true });
    // A pacing wait ends with the pacer's own figure; the others are timed by the listener.
    expect(events).toEqual([
      'start pacing undefined',
      'end pacing number',
      'start retry_after 0',
      'end retry_after undefined',
      'start pacing undefined',
      'end pacing number',
    ]);
  });

  it("tells the call's wait listener of each retry's backoff, with the attempt it comes before", async () => {
    const sender = new FakeSender([
      { status: 503, headers: {}, body: null },
      { status: 200, headers: {}, body: {} },
    ]);
    const e = engine({ sender, options: { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } } });
    const events: unknown[] = [];
    const onWait: CallWaitListener = (reason, ms, retry) => {
      events.push([reason, ms, retry]);
      return () => events.push(`end ${reason}`);
    };
    expect(await e.call('T.Get', { thing: 'a' }, { userId: 'u1', onWait })).toMatchObject({ ok: true });
    expect(events).toEqual([
      ['retry', expect.any(Number), { attempt: 2, maxAttempts: 3, status: 503 }],
      'end retry',
    ]);
  });

  it('names an unknown tool', async () => {
    expect(await engine({}).call('T.Nope', {}, ctx)).toMatchObject({
      ok: false,
      error: { code: 'unknown_tool' },
    });
  });

  describe('retries only where safe', () => {
    const fast = { retry: { baseDelayMs: 1, maxDelayMs: 2 } };
    const build = (sender: HttpSender) => engine({ sender, secrets: { API_KEY: 'k' }, options: fast });
    const post = { mode: 'execute', target: 'a', request_body: '{"a":1}' };

    it('retries a 5xx of an idempotent GET up to the attempt limit', async () => {
      const sender = new FakeSender([
        { status: 503, headers: {}, body: null },
        { status: 502, headers: {}, body: null },
      ]);
      expect((await build(sender).call('T.Get', { thing: 'x' }, ctx)).ok).toBe(true);
      expect(sender.requests).toHaveLength(3);
    });

    it('never repeats a POST that answered 5xx', async () => {
      const sender = new FakeSender([{ status: 503, headers: {}, body: null }]);
      const out = await build(sender).call('T.Send', post, ctx);
      expect(out).toMatchObject({
        ok: false,
        error: { code: 'upstream_error', status: 503, retryable: true },
      });
      expect(sender.requests).toHaveLength(1);
    });

    it('retries a POST only when the request never left', async () => {
      const failing = (requestNotSent: boolean) => {
        let calls = 0;
        const sender: HttpSender = {
          async send() {
            calls += 1;
            if (calls === 1) {
              throw new ToolError(
                { code: 'upstream_unavailable', message: 'x', retryable: true },
                { requestNotSent },
              );
            }
            return { status: 200, headers: {}, body: {} };
          },
        };
        return { sender, calls: () => calls };
      };
      const refused = failing(true);
      expect((await build(refused.sender).call('T.Send', post, ctx)).ok).toBe(true);
      expect(refused.calls()).toBe(2);
      const reset = failing(false);
      expect(await build(reset.sender).call('T.Send', post, ctx)).toMatchObject({
        ok: false,
        error: { code: 'upstream_unavailable' },
      });
      expect(reset.calls()).toBe(1);
    });

    it('retries a 429 once, for any method, when Retry-After is acceptable', async () => {
      const sender = new FakeSender([
        { status: 429, headers: { 'retry-after': '0' }, body: null },
        { status: 429, headers: { 'retry-after': '0' }, body: null },
      ]);
      const out = await build(sender).call('T.Send', post, ctx);
      expect(out).toMatchObject({ ok: false, error: { code: 'upstream_rate_limited' } });
      expect(sender.requests).toHaveLength(2);
    });

    it('reports cancellation while waiting as cancelled', async () => {
      const sender = new FakeSender([{ status: 429, headers: { 'retry-after': '5' }, body: null }]);
      const ac = new AbortController();
      const pending = build(sender).call('T.Get', { thing: 'x' }, { userId: 'u', signal: ac.signal });
      setTimeout(() => ac.abort(new Error('client cancelled')), 10);
      expect(await pending).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    });
  });
});

describe('ToolEngine.prepare and dispatch', () => {
  const post = { mode: 'execute', target: 'a', request_body: '{"a":1}' };

  it('prepares without sending or asking for a credential, and dispatch sends that request with it', async () => {
    const sender = new FakeSender();
    const e = engine({ sender, secrets: { API_KEY: 'k1' } });
    const prepared = e.prepare('T.Send', post);
    expect(prepared.kind).toBe('request');
    if (prepared.kind !== 'request') return;
    expect(sender.requests).toHaveLength(0);
    expect(prepared.request.credentialHeader).toBe('authorization');
    expect(prepared.request.http.headers).not.toHaveProperty('authorization');
    const sent = await e.dispatch(prepared.request, ctx);
    expect(sent).toMatchObject({ outcome: { ok: true, status: 200 }, reachedUpstream: true });
    const { authorization, ...headers } = sender.requests[0]!.headers;
    expect(authorization).toBe(`Basic ${Buffer.from('k1:').toString('base64')}`);
    expect({ ...sender.requests[0], headers }).toEqual(prepared.request.http);
    // The prepared request is left as it was: it can be shown again without the credential.
    expect(prepared.request.http.headers).not.toHaveProperty('authorization');
  });

  it('answers a schema request or an invalid call as an outcome, with no request', () => {
    const e = engine({});
    expect(e.prepare('T.Send', { mode: 'get_request_schema' })).toMatchObject({
      kind: 'outcome',
      outcome: { ok: true, kind: 'schema' },
    });
    expect(e.prepare('T.Send', { mode: 'execute', target: 'a', request_body: '{"a":"x"}' })).toMatchObject({
      kind: 'outcome',
      outcome: { ok: false, error: { code: 'invalid_argument' } },
    });
    expect(e.prepare('T.Nope', {})).toMatchObject({ outcome: { error: { code: 'unknown_tool' } } });
  });

  it('tells that a request without its credential never reached the upstream', async () => {
    const sender = new FakeSender();
    const e = engine({ sender });
    const prepared = e.prepare('T.Send', post);
    if (prepared.kind !== 'request') throw new Error('not prepared');
    const sent = await e.dispatch(prepared.request, ctx);
    expect(sent).toMatchObject({
      outcome: { ok: false, error: { code: 'missing_secret' } },
      reachedUpstream: false,
    });
    expect(sender.requests).toHaveLength(0);
  });

  it('tells that an upstream error may have reached the upstream', async () => {
    const sender = new FakeSender([{ status: 500, headers: {}, body: { error: 'x' } }]);
    const e = engine({ sender, secrets: { API_KEY: 'k1' } });
    const prepared = e.prepare('T.Send', post);
    if (prepared.kind !== 'request') throw new Error('not prepared');
    expect(await e.dispatch(prepared.request, ctx)).toMatchObject({
      outcome: { ok: false, error: { code: 'upstream_error' } },
      reachedUpstream: true,
    });
  });

  describe('slots per upstream', () => {
    /** A sender that holds every request until released, counting how many are in flight per host. */
    class HoldingSender implements HttpSender {
      inFlight = new Map<string, number>();
      peak = new Map<string, number>();
      private held: (() => void)[] = [];
      async send(request: HttpRequestSpec): Promise<HttpResponse> {
        const host = new URL(request.url).host;
        const now = (this.inFlight.get(host) ?? 0) + 1;
        this.inFlight.set(host, now);
        this.peak.set(host, Math.max(now, this.peak.get(host) ?? 0));
        await new Promise<void>((r) => this.held.push(r));
        this.inFlight.set(host, (this.inFlight.get(host) ?? 1) - 1);
        return { status: 200, headers: {}, body: {} };
      }
      releaseAll() {
        const held = this.held;
        this.held = [];
        for (const r of held) r();
      }
    }
    const get: ToolDeclaration = {
      name: 'Get',
      description: 'get',
      method: 'GET',
      path: '/things',
      auth: { kind: 'none' },
      params: [],
    };
    const set = (toolSet: string, server: string): ToolSetDefinition => ({
      contractVersion: '2.0',
      toolSet,
      plugin: { name: toolSet, version: '1' },
      servers: { default: server },
      tools: [get],
    });
    async function peaks(sets: ToolSetDefinition[], calls: string[], options?: EngineOptions) {
      const sender = new HoldingSender();
      const e = new ToolEngine(new ToolRegistry(sets), { authProviders: [], http: sender }, options);
      const running = calls.map((name) => e.call(name, {}, ctx));
      // Every call that can be in flight is, once the queue has settled.
      for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
      const peak = Object.fromEntries(sender.peak);
      while (sender.inFlight.size > 0 && [...sender.inFlight.values()].some((n) => n > 0)) {
        sender.releaseAll();
        await new Promise((r) => setImmediate(r));
      }
      sender.releaseAll();
      await Promise.all(running);
      return peak;
    }

    it('lets one upstream use every slot when all tools reach it', async () => {
      const calls = Array.from({ length: 80 }, (_, i) => (i % 2 ? 'A.Get' : 'B.Get'));
      // Two tool sets, one upstream: the host's 64 slots, not a share.
      expect(await peaks([set('A', 'https://one.test/v1'), set('B', 'https://one.test/v2')], calls)).toEqual({
        'one.test': 64,
      });
    });

    it('keeps a share for the others when tools reach several upstreams', async () => {
      const calls = Array.from({ length: 80 }, () => 'A.Get');
      expect(await peaks([set('A', 'https://one.test'), set('B', 'https://two.test')], calls)).toEqual({
        'one.test': 32,
      });
    });

    it('keeps to the number set, whatever the upstreams', async () => {
      const calls = Array.from({ length: 20 }, () => 'A.Get');
      expect(
        await peaks([set('A', 'https://one.test')], calls, { maxConcurrentRequestsPerUpstream: 5 }),
      ).toEqual({ 'one.test': 5 });
    });
  });
});
