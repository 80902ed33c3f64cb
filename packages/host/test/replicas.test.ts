import {
  type CallToolResult,
  Client,
  type ProtocolError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { TokenCipher } from '@toolhost/credentials';
import { RedisTokenStore } from '@toolhost/redis-store';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { type Balancer, startBalancer } from './balancer.js';
import { Browser, startFlow } from './browser.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
} from './fake-oauth-server.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import {
  browserAuthorizationAcrossReplicas,
  confirmationAcrossReplicas,
  elicitationCompletionAcrossReplicas,
  type StoreUnderTest,
  sessionAcrossReplicas,
} from './replica-scenarios.js';
import {
  ALICE_ACCESS_TOKEN as ALICE,
  BOB_ACCESS_TOKEN as BOB,
  type HttpHostProcess,
  spawnHttpHost,
} from './support.js';
import { AGREE, type ModernRetry, postModernCall } from './write-support.js';

const TOKEN_KEY = 'token-encryption-key-for-replicas';

let redis: RedisServer;
let admin: Redis;
let oauth: FakeOAuthServer;
let upstream: RecordingUpstream;
let balancer: Balancer;
const replicas: HttpHostProcess[] = [];
const clients: Client[] = [];

/** Replicas behind the balancer: links and redirect URIs name the balancer, as behind a real one. */
function replicaConfig(): HostConfig {
  return {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    http: { publicUrl: balancer.url },
    auth: {
      providers: echoAuthProviders(oauth),
    },
  };
}

/** Two replicas sharing Redis, each a real `toolhost serve --http` process; A first. */
async function startReplicas(extra: Partial<HostConfig> = {}): Promise<[HttpHostProcess, HttpHostProcess]> {
  const env = {
    TOOLHOST_REDIS_URL: redis.url,
    TOOLHOST_TOKEN_KEY: TOKEN_KEY,
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}`,
    ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
  };
  const started = await Promise.all([
    spawnHttpHost({ ...replicaConfig(), ...extra }, env),
    spawnHttpHost({ ...replicaConfig(), ...extra }, env),
  ]);
  replicas.push(...started);
  balancer.targets = started.map((r) => new URL(r.url).origin);
  return started as [HttpHostProcess, HttpHostProcess];
}

/** A valid token of Alice's for `scope`, in Redis as a replica would have stored it. */
async function storeAliceToken(scope: string): Promise<string> {
  const store = await RedisTokenStore.open(admin, TokenCipher, TOKEN_KEY);
  const issued = oauth.mint(scope);
  await store.set('echo-auth', 'alice', {
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    expiresAt: Date.now() + 3_600_000,
    scopes: [scope],
  });
  return issued.access_token;
}

const origin = (r: HttpHostProcess) => new URL(r.url).origin;

/** This suite's store for the scenarios every deployment runs (they start replicas of their own). */
const suite = (): StoreUnderTest => ({
  upstream,
  oauth,
  tokenKey: TOKEN_KEY,
  env: { TOOLHOST_REDIS_URL: redis.url, TOOLHOST_TOKEN_KEY: TOKEN_KEY },
  admin,
  keys: (pattern) => admin.keys(pattern),
});

async function connect(
  url: string,
  token = ALICE,
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'replica-test', version: '0.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

interface ModernAnswer {
  result?: CallToolResult & { resultType?: string; requestState?: string };
  error?: { code: number; message: string };
}

/** A 2026-07-28 tools/call of Alice's by hand (and its retry with her answer): the body of a 200, else thrown. */
async function modernCall(
  url: string,
  name: string,
  args: Record<string, unknown>,
  retry?: ModernRetry,
): Promise<ModernAnswer> {
  const res = await postModernCall(url, { token: ALICE, name, args, retry });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as ModernAnswer;
}

const getItem = (c: Client, id = 'i1') =>
  c.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } }) as Promise<CallToolResult>;

/** The sign-in a call is answered with by URL elicitation (error -32042). */
async function urlElicitationOf(client: Client): Promise<{ url: string; elicitationId: string }> {
  const error = await getItem(client).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect((error as ProtocolError).code).toBe(-32042);
  return ((error as ProtocolError).data as { elicitations: { url: string; elicitationId: string }[] })
    .elicitations[0]!;
}

beforeAll(async () => {
  redis = await startRedisServer();
  admin = redisClient(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  oauth = await startFakeOAuthServer();
  upstream = await startRecordingUpstream();
  balancer = await startBalancer();
});
afterAll(async () => {
  await closeClient(admin);
  await balancer.close();
  await redis.close();
  await oauth.close();
  await upstream.close();
});
beforeEach(async () => {
  oauth.reset();
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { ok: true } }));
  balancer.forwarded.length = 0;
  balancer.pick = undefined;
  await admin.flushall();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  for (const r of replicas.splice(0)) {
    r.child.kill('SIGTERM');
    await r.exited;
  }
});

describe('replicas: authorization across replicas', () => {
  it('completes on replica B a flow that replica A handed out; both then use the token', async () => {
    await browserAuthorizationAcrossReplicas(suite());
  }, 60_000);

  it('tells a client waiting on replica A (URL elicitation) when the callback landed on replica B', async () => {
    await elicitationCompletionAcrossReplicas(suite());
  }, 60_000);

  it("delivers the completion notice through the replica holding the client's event stream", async () => {
    const [a, b] = await startReplicas();
    // The client's POSTs (initialize, the call) land on A, its GET event stream on B.
    balancer.pick = (req) => (req.method === 'GET' ? origin(b) : origin(a));
    const { client } = await connect(`${balancer.url}/mcp`, ALICE, { elicitation: { url: {} } });
    const completed = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/elicitation/complete', (n) =>
        resolve(n.params.elicitationId),
      ),
    );
    await vi.waitFor(() =>
      expect(balancer.forwarded.some((f) => f.method === 'GET' && f.target === origin(b))).toBe(true),
    );
    const elicitation = await urlElicitationOf(client);
    expect(balancer.forwarded.filter((f) => f.method === 'POST').every((f) => f.target === origin(a))).toBe(
      true,
    );

    balancer.pick = () => origin(b);
    const browser = new Browser();
    expect((await browser.open(await startFlow(browser, elicitation.url, ALICE))).status).toBe(200);
    expect(await completed).toBe(elicitation.elicitationId);
  }, 60_000);

  // The replica that answered the call (and held the client's event stream) is killed before
  // the person completes the sign-in: the notice comes from B, once, whether the client's
  // stream is back (on B) when the flow completes or comes back only after.
  for (const streamBack of [true, false])
    it(`delivers the completion notice from B when A, which answered the call, is killed (stream back ${streamBack ? 'before' : 'after'} the flow completes)`, async () => {
      const [a, b] = await startReplicas();
      balancer.pick = () => origin(a);
      const client = new Client(
        { name: 'replica-test', version: '0.0.0' },
        { capabilities: { elicitation: { url: {} } } },
      );
      const transport = new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
        // A slow reconnection leaves the flow time to complete while no replica holds the stream.
        reconnectionOptions: {
          initialReconnectionDelay: streamBack ? 200 : 3000,
          maxReconnectionDelay: 5000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 5,
        },
      });
      await client.connect(transport);
      clients.push(client);
      const notices: string[] = [];
      client.setNotificationHandler('notifications/elicitation/complete', (n) => {
        notices.push(n.params.elicitationId);
      });
      const streamOn = (r: HttpHostProcess) =>
        balancer.forwarded.some(
          (f) => f.method === 'GET' && f.path === '/mcp' && f.target === origin(r) && f.status === 200,
        );
      await vi.waitFor(() => expect(streamOn(a)).toBe(true));
      const elicitation = await urlElicitationOf(client);

      a.child.kill('SIGKILL');
      await a.exited;
      balancer.pick = () => origin(b);
      if (streamBack) await vi.waitFor(() => expect(streamOn(b)).toBe(true), { timeout: 10_000 });
      const browser = new Browser();
      expect((await browser.open(await startFlow(browser, elicitation.url, ALICE))).status).toBe(200);
      expect(streamOn(b)).toBe(streamBack);
      await vi.waitFor(() => expect(notices).toEqual([elicitation.elicitationId]), { timeout: 15_000 });
      expect((await getItem(client)).isError).toBeFalsy();
      expect(notices).toHaveLength(1);
      expect(await admin.keys('toolhost:session:notices:*')).toEqual([]);
    }, 60_000);

  it('refuses, on B, a callback from a browser that A never bound to the flow', async () => {
    const [a, b] = await startReplicas();
    const first = await getItem((await connect(a.url)).client);
    const link = (first.structuredContent as { error: { authorization: { url: string } } }).error
      .authorization.url;
    balancer.pick = () => origin(b);
    const callback = await startFlow(new Browser(), link, ALICE);
    const stranger = await new Browser().open(callback);
    expect(stranger.status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
  }, 60_000);
});

describe('replicas: any replica serves any session', () => {
  it("hands the person's confirmation to the replica that asked, wherever it lands", async () => {
    await confirmationAcrossReplicas(suite());
  }, 60_000);

  it('takes on replica B the answer to a 2026-07-28 confirmation replica A asked', async () => {
    const [a, b] = await startReplicas({ tools: { confirmWrites: true } });
    await storeAliceToken('items.write');
    let answered = false;
    balancer.pick = () => (answered ? origin(b) : origin(a));
    const client = new Client(
      { name: 'modern', version: '0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => {
      answered = true;
      return { action: 'accept', content: { send: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'EchoApi_DeleteItem', arguments: { item_id: 'm9' } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const calls = balancer.forwarded.filter((f) => f.method === 'POST').slice(-2);
    expect(calls.map((f) => f.target)).toEqual([origin(a), origin(b)]);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({ method: 'DELETE', path: '/items/m9' });
    expect(await admin.keys('toolhost:session:*')).toEqual([]);
  }, 60_000);

  it('answers a 2026-07-28 confirmation retried on B after A was killed mid-send: its outcome or outcome unknown, never a second request', async () => {
    const [a, b] = await startReplicas({ tools: { confirmWrites: true, idempotencyClaimSeconds: 2 } });
    await storeAliceToken('items.write');
    let served = 0;
    let hold = false;
    // A held request stays at the upstream: its replica has sent it and waits for the answer.
    upstream.respond(() =>
      hold ? new Promise<never>(() => {}) : { status: 200, body: { deleted: true, n: ++served } },
    );
    const target = { to: origin(a) };
    balancer.pick = () => target.to;
    const deleteItem = (id: string, retry?: { requestState: string }) =>
      modernCall(
        `${balancer.url}/mcp`,
        'EchoApi_DeleteItem',
        { item_id: id },
        retry && { ...retry, inputResponses: AGREE },
      );

    // Answered on A and retried on B (the answer lost on its way): B answers A's outcome.
    const sentState = (await deleteItem('kept')).result!.requestState!;
    const sent = await deleteItem('kept', { requestState: sentState });
    expect(sent.result?.isError, JSON.stringify(sent)).toBeFalsy();
    target.to = origin(b);
    const retried = await deleteItem('kept', { requestState: sentState });
    expect(retried.result).toEqual(sent.result);
    expect(upstream.requests).toHaveLength(1);

    // Answered on A, which is killed once its request is at the upstream, before it answers.
    target.to = origin(a);
    const state = (await deleteItem('lost')).result!.requestState!;
    hold = true;
    const lost = deleteItem('lost', { requestState: state }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(2), { timeout: 20_000, interval: 20 });
    a.child.kill('SIGKILL');
    await a.exited;
    // The client never got its answer (the balancer's 502, or a stream cut short).
    expect(await lost).toBeInstanceOf(Error);
    hold = false;
    target.to = origin(b);
    const errorOf = (r: ModernAnswer) =>
      (r.result?.structuredContent as { error?: { code: string; message: string; retryable: boolean } })
        ?.error;
    // The killed replica's claim outlives it by up to tools.idempotencyClaimSeconds: meanwhile
    // the retry is told the call is still running, and sends nothing either.
    const deadline = Date.now() + 30_000;
    let answer = await deleteItem('lost', { requestState: state });
    while (errorOf(answer)?.code === 'confirmation_in_progress' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      answer = await deleteItem('lost', { requestState: state });
    }
    expect(answer.error, JSON.stringify(answer)).toBeUndefined();
    expect(answer.result?.isError).toBe(true);
    expect(errorOf(answer)).toMatchObject({ code: 'confirmation_outcome_unknown', retryable: false });
    expect(errorOf(answer)?.message).toMatch(/may have reached the upstream/);
    expect(errorOf(answer)?.message).toMatch(/Check upstream whether the change was made/);
    // And again later: the confirmation never sends.
    expect(errorOf(await deleteItem('lost', { requestState: state }))?.code).toBe(
      'confirmation_outcome_unknown',
    );
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /items/kept',
      'DELETE /items/lost',
    ]);
  }, 90_000);

  it('serves one session whose requests alternate between two replicas, for its user only', async () => {
    await sessionAcrossReplicas(suite());
  }, 60_000);

  it('answers 2026-07-28 requests on either replica with no session record in Redis', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken('items.read');
    const keysBefore = (await admin.keys('toolhost:session:*')).length;
    const client = new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    for (let i = 0; i < 4; i += 1) expect((await getItem(client, `m${i}`)).isError).toBeFalsy();
    const posts = balancer.forwarded.filter((f) => f.method === 'POST');
    expect(new Set(posts.map((f) => f.target))).toEqual(new Set([origin(a), origin(b)]));
    expect(posts.every((f) => f.session === undefined && f.status === 200)).toBe(true);
    expect((await admin.keys('toolhost:session:*')).length).toBe(keysBefore);
    expect(upstream.requests.length).toBe(4);
  }, 60_000);

  it('keeps serving when replica A stops in the middle of a load: B answers everything, no token lost', async () => {
    const [a, b] = await startReplicas();
    const store = await RedisTokenStore.open(admin, TokenCipher, TOKEN_KEY);
    const issued = oauth.mint('items.read');
    // Expired: the first calls refresh it, once for both replicas.
    await store.set('echo-auth', 'alice', {
      accessToken: issued.access_token,
      refreshToken: issued.refresh_token,
      expiresAt: Date.now() - 1000,
      scopes: ['items.read'],
    });
    const { client } = await connect(`${balancer.url}/mcp`);
    let done = 0;
    let retries = 0;
    /** A call as a client behind a load balancer makes it: a failed exchange is tried again. */
    const call = async (i: number) => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const result = await getItem(client, `i${i}`);
          if (!result.isError) return result;
          if (attempt >= 4) return result;
        } catch (e) {
          if (attempt >= 4) throw e;
        }
        retries += 1;
      }
    };
    const results: CallToolResult[] = [];
    const worker = async (w: number) => {
      for (let i = w; i < 40; i += 4) {
        results.push(await call(i));
        done += 1;
        if (done === 20) a.child.kill('SIGKILL');
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(results).toHaveLength(40);
    expect(results.filter((r) => r.isError)).toEqual([]);
    await a.exited;
    expect(balancer.targets).toEqual([origin(b)]);
    const after = balancer.forwarded.slice(-10);
    expect(after.every((f) => f.target === origin(b))).toBe(true);

    const stored = (await store.get('echo-auth', 'alice'))!;
    expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: issued.refresh_token }]);
    expect(stored.accessToken).not.toBe(issued.access_token);
    expect(stored.expiresAt).toBeGreaterThan(Date.now());
    expect(new Set(upstream.requests.map((r) => r.headers.authorization))).toEqual(
      new Set([`Bearer ${stored.accessToken}`]),
    );
    // The refreshed token still refreshes: nothing half-written.
    expect(stored.refreshToken).toBeTruthy();
    expect(retries).toBeLessThan(40);
  }, 90_000);
});
