import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { hashUserId, telemetryKey } from '../src/observability/hash-user-id.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
  storeAuthorized,
} from './fake-oauth-server.js';
import { fixtureApp, inlinePlugin, tokenStoreOf } from './support.js';

/** Collects on demand, as a test needs (the SDK's readers otherwise export on a timer). */
class OnDemandReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const USER = 'alice@example.com';
const ACCESS_TOKEN = 'access-token-for-alice-0123456789';
/** A user who is not an operator. */
const BOB_TOKEN = 'access-token-for-bob-0123456789xx';
const METRICS_TOKEN = 'metrics-scraper-token-0123456789';
const TELEMETRY_KEY = 'telemetry-key-0123456789abcdef';
const spans = new InMemorySpanExporter();
const reader = new OnDemandReader();
let upstream: RecordingUpstream;
let oauth: FakeOAuthServer;
let host: Host;

/** A tool set with pacing and a 429 retry, so that both kinds of rate-limit wait happen. */
const pacedPlugin = inlinePlugin(
  'Paced',
  [
    {
      name: 'Ping',
      description: 'Pings a base.',
      method: 'GET',
      path: '/paced/{base}',
      auth: { kind: 'none' },
      hints: { readOnly: true },
      params: [
        { name: 'base', in: 'path', required: true, schema: { type: 'string' }, description: 'Base.' },
      ],
    },
  ],
  {
    pacing: { key: 'base', requestsPerSecond: 20 },
    retryOnRateLimit: { defaultWaitSeconds: 0, maxWaitSeconds: 1 },
  },
);

beforeAll(async () => {
  // The operator's SDK, registered before the host's first call as an operator's start-up would.
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  let pings = 0;
  upstream = await startRecordingUpstream((req) => {
    if (req.path.startsWith('/items/missing')) return { status: 404, body: { error: 'no such item' } };
    if (req.path.startsWith('/paced/')) {
      pings += 1;
      if (pings === 1) return { status: 429, headers: { 'retry-after': '0' }, body: null };
    }
    return { status: 200, body: { path: req.path, auth: req.headers.authorization } };
  });
  oauth = await startFakeOAuthServer();
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url }, Paced: { baseUrl: upstream.url } },
    auth: {
      providers: echoAuthProviders(oauth, { redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth' }),
    },
    http: { operators: [USER] },
  };
  host = await createHost(config, {
    configDir: fixtureApp,
    plugins: [pacedPlugin],
    env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret, TOOLHOST_TELEMETRY_KEY: TELEMETRY_KEY },
  });
});

afterAll(async () => {
  await host.close();
  await upstream.close();
  await oauth.close();
  // The next file in this worker starts without an operator's SDK, as a fresh process would.
  trace.disable();
  metrics.disable();
});

beforeEach(() => spans.reset());

/** Stores a token for the user as a completed authorization would; expired ones need a refresh. */
async function authorize(expiresAt = Date.now() + 3_600_000): Promise<string> {
  return (await storeAuthorized(oauth, tokenStoreOf(host), USER, expiresAt)).accessToken;
}

const attributesOf = (span: ReadableSpan) => span.attributes;

async function counter(name: string): Promise<{ attributes: Record<string, unknown>; value: number }[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((p) => ({
    attributes: p.attributes,
    value: p.value as number,
  }));
}

describe('traces', () => {
  it('records a span per call with the tool, the tool set, the upstream status and a hashed user', async () => {
    const token = await authorize();
    const out = await host.callTool('EchoApi.GetItem', { item_id: 'a1' }, { userId: USER });
    expect(out.ok).toBe(true);
    const [span, ...others] = spans.getFinishedSpans();
    expect(others).toHaveLength(0);
    expect(span!.name).toBe('execute_tool EchoApi.GetItem');
    expect(attributesOf(span!)).toMatchObject({
      'toolhost.tool': 'EchoApi.GetItem',
      'toolhost.tool_set': 'EchoApi',
      'toolhost.outcome': 'ok',
      'http.response.status_code': 200,
      'toolhost.upstream.attempts': 1,
      'enduser.id': hashUserId(USER, Buffer.from(TELEMETRY_KEY)),
    });
    // Keyed: not the plain hash of the id, which anyone could compute from a guessed address.
    expect(attributesOf(span!)['enduser.id']).not.toBe(
      createHash('sha256').update(USER).digest('hex').slice(0, 16),
    );
    expect(attributesOf(span!)['toolhost.upstream.duration_ms']).toBeTypeOf('number');
    expect(span!.status.code).not.toBe(2);
    // Neither the user id nor the upstream token leaves in a span.
    const text = JSON.stringify({ attributes: span!.attributes, events: span!.events, name: span!.name });
    expect(text).not.toContain(USER);
    expect(text).not.toContain(token);
  });

  it('marks a failed call as an error with its code and the upstream status', async () => {
    await authorize();
    const out = await host.callTool('EchoApi.GetItem', { item_id: 'missing' }, { userId: USER });
    expect(out).toMatchObject({ ok: false, error: { code: 'upstream_error' } });
    const [span] = spans.getFinishedSpans();
    expect(span!.status).toMatchObject({ code: 2, message: 'upstream_error' });
    expect(attributesOf(span!)).toMatchObject({
      'toolhost.outcome': 'error',
      'toolhost.error_code': 'upstream_error',
      'error.type': 'upstream_error',
      'http.response.status_code': 404,
    });
  });

  it('records a span for a call refused before any request, without upstream attributes', async () => {
    const out = await host.callTool('EchoApi.GetItem', {}, { userId: USER });
    expect(out).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    const [span] = spans.getFinishedSpans();
    expect(attributesOf(span!)).toMatchObject({ 'toolhost.error_code': 'invalid_argument' });
    expect(attributesOf(span!)['toolhost.upstream.attempts']).toBeUndefined();
  });
});

describe('metrics', () => {
  it('counts calls by outcome and errors by code', async () => {
    await authorize();
    const before = await counter('toolhost.tool.calls');
    const okBefore =
      before.find(
        (p) =>
          p.attributes['toolhost.tool'] === 'EchoApi.GetItem' && p.attributes['toolhost.outcome'] === 'ok',
      )?.value ?? 0;
    await host.callTool('EchoApi.GetItem', { item_id: 'b1' }, { userId: USER });
    await host.callTool('EchoApi.GetItem', { item_id: 'b2' }, { userId: USER });
    await host.callTool('EchoApi.GetItem', { item_id: 'missing' }, { userId: USER });
    const calls = await counter('toolhost.tool.calls');
    expect(
      calls.find(
        (p) =>
          p.attributes['toolhost.tool'] === 'EchoApi.GetItem' && p.attributes['toolhost.outcome'] === 'ok',
      )?.value,
    ).toBe(okBefore + 2);
    const errors = await counter('toolhost.tool.errors');
    expect(
      errors.find((p) => p.attributes['toolhost.error_code'] === 'upstream_error')?.value,
    ).toBeGreaterThan(0);
  });

  it('counts token refreshes', async () => {
    await authorize(Date.now() - 1000);
    const out = await host.callTool('EchoApi.GetItem', { item_id: 'c1' }, { userId: USER });
    expect(out.ok).toBe(true);
    const refreshes = await counter('toolhost.token.refreshes');
    expect(refreshes).toContainEqual({
      attributes: { 'toolhost.auth.provider': 'echo-auth', 'toolhost.outcome': 'ok' },
      value: 1,
    });
  });

  it('counts rate-limit waits: the retry after a 429, and pacing slots', async () => {
    const outs = await Promise.all([
      host.callTool('Paced.Ping', { base: 'b' }),
      host.callTool('Paced.Ping', { base: 'b' }),
    ]);
    expect(outs.every((o) => o.ok)).toBe(true);
    const waits = await counter('toolhost.rate_limit.waits');
    const kinds = Object.fromEntries(waits.map((p) => [p.attributes['toolhost.rate_limit.kind'], p.value]));
    expect(kinds.retry_after).toBe(1);
    // Two requests 50 ms apart at most for one base: at least the second one waited its slot.
    expect(kinds.pacing).toBeGreaterThanOrEqual(1);
    const [span] = spans.getFinishedSpans().filter((s) => s.attributes['toolhost.upstream.attempts'] === 2);
    expect(span!.attributes['http.response.status_code']).toBe(200);
  });
});

describe('GET /metrics', () => {
  let server: HttpServerHandle;
  let base: string;

  beforeAll(async () => {
    server = await serveHttp(host, {
      port: 0,
      accessTokens: new AccessTokens({ [USER]: ACCESS_TOKEN, bob: BOB_TOKEN }),
      metricsToken: METRICS_TOKEN,
    });
    base = new URL(server.url).origin;
  });

  afterAll(async () => {
    await server.close();
  });

  it('refuses a scraper without an access token', async () => {
    const bare = await fetch(`${base}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await fetch(`${base}/metrics`, {
      headers: { authorization: 'Bearer not-a-token-0123456789' },
    });
    expect(wrong.status).toBe(401);
  });

  it("refuses a user's access token unless the user is an operator; takes the metrics token", async () => {
    const bob = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BOB_TOKEN}` } });
    expect(bob.status).toBe(403);
    expect(await bob.text()).toMatch(/for operators/);
    const scraper = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraper.status).toBe(200);
    expect(await scraper.text()).toContain('toolhost_tool_calls_total');
  });

  // Both are checked as every access token is (AccessTokens: digests, in constant time): a token
  // one character off, of the same length, is refused as any other unknown one.
  it('refuses a token of the right length one character off, and takes the right one', async () => {
    const get = (token: string) =>
      fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    for (const right of [METRICS_TOKEN, ACCESS_TOKEN]) {
      const off = `${right.slice(0, -1)}${right.endsWith('x') ? 'y' : 'x'}`;
      expect(off).toHaveLength(right.length);
      expect((await get(off)).status, off).toBe(401);
      expect((await get(right)).status).toBe(200);
      expect((await get(` ${right} `)).status).toBe(200);
    }
  });

  it('serves the counters in Prometheus text format after calls over MCP, with no secret in it', async () => {
    const upstreamToken = await authorize();
    const client = new Client({ name: 'metrics-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${ACCESS_TOKEN}` } },
      }),
    );
    for (const id of ['m1', 'm2', 'missing'])
      await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } });
    await client.close();

    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ACCESS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    const okCalls =
      /^toolhost_tool_calls_total\{tool_set="EchoApi",tool="EchoApi.GetItem",outcome="ok"\} (\d+)$/m.exec(
        text,
      );
    expect(Number(okCalls?.[1])).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^toolhost_tool_errors_total\{tool_set="EchoApi",code="upstream_error"\} \d+$/m);
    expect(text).toMatch(/^toolhost_token_refreshes_total\{provider="echo-auth",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^toolhost_rate_limit_waits_total\{tool_set="Paced",kind="retry_after"\} 1$/m);
    expect(text).toContain('# TYPE toolhost_tool_call_duration_seconds histogram');
    for (const secret of [ACCESS_TOKEN, upstreamToken, USER, fakeClient.clientSecret])
      expect(text).not.toContain(secret);
    expect(await host.metrics()).toContain('toolhost_tool_calls_total');
  });
});

describe('the key of telemetry user ids', () => {
  it('is derived from TOOLHOST_TOKEN_KEY: the same on every replica, not the key itself', () => {
    const env = { TOOLHOST_TOKEN_KEY: 'token-key-0123456789abcdef' };
    const key = telemetryKey(undefined, env);
    expect(key.equals(telemetryKey(undefined, { ...env }))).toBe(true);
    expect(key.toString('utf8')).not.toContain(env.TOOLHOST_TOKEN_KEY);
    expect(hashUserId(USER, key)).not.toBe(
      hashUserId(USER, telemetryKey(undefined, { TOOLHOST_TOKEN_KEY: 'another-key-0123456789' })),
    );
  });

  it('is the configured one where set (the environment first), else random per process', () => {
    expect(telemetryKey('from-config-0123456789', {}).toString()).toBe('from-config-0123456789');
    expect(
      telemetryKey('from-config-0123456789', { TOOLHOST_TELEMETRY_KEY: 'from-env-0123456789ab' }).toString(),
    ).toBe('from-env-0123456789ab');
    expect(telemetryKey(undefined, {}).equals(telemetryKey(undefined, {}))).toBe(false);
  });
});
