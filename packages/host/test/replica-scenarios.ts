import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CallToolResult,
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { ToolOutcome } from '@toolhost/core';
import { TokenCipher } from '@toolhost/credentials';
import { openSharedCipher, RedisChannels, RedisTokenStore, type SharedRedis } from '@toolhost/redis-store';
import { expect, vi } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import { SHARED_STORE } from '../src/assemble-host.js';
import type { AuthProviderConfig, HostConfig } from '../src/config/host-config.js';
import { disconnect, listConnections } from '../src/connections.js';
import { containerOf, createHost, type Host } from '../src/host.js';
import type { Logger } from '../src/logger.js';
import { resolveService } from '../src/services.js';
import { type Balancer, startBalancer } from './balancer.js';
import { Browser, startFlow } from './browser.js';
import { echoAuthProviders, type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { expectPaced, pacedSpans } from './paced-spans.js';
import { type HttpReplica, serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN, BOB_ACCESS_TOKEN, fixtureApp, tokenStoreOf } from './support.js';
import { writeHost } from './write-support.js';

// Scenarios that must hold on every shared-store deployment (standalone Redis, Sentinel,
// Cluster): each suite runs them against its own store, written once here.

/** What a suite gives the scenarios: its store, and the fakes around it. */
export interface StoreUnderTest {
  upstream: RecordingUpstream;
  oauth: FakeOAuthServer;
  /** TOOLHOST_TOKEN_KEY of the replicas. */
  tokenKey: string;
  /** The replicas' environment (the store's URL and key, where the suite sets them there). */
  env: Record<string, string>;
  /** The config's store section, where the suite sets the store there. */
  store?: HostConfig['store'];
  /** A connection of the test's own to the store. */
  admin: SharedRedis;
  /** The keys matching `pattern`, on every master. */
  keys(pattern: string): Promise<string[]>;
}

const repoRoot = resolve(fixtureApp, '../../../../..');
const errorCode = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);
const getItem = (host: Host, id: string, userId = 'alice') =>
  host.callTool('EchoApi.GetItem', { item_id: id }, { userId });

/**
 * The echo tool set against the suite's upstream and vendor, on its store (plus `extra`, and
 * `provider` settings of the echo-auth provider's own).
 */
export function echoConfigOn(
  s: StoreUnderTest,
  extra: Partial<HostConfig> = {},
  provider: Partial<AuthProviderConfig> = {},
): HostConfig {
  return {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: s.upstream.url } },
    auth: {
      providers: echoAuthProviders(s.oauth, {
        redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth',
        ...provider,
      }),
    },
    ...(s.store ? { store: s.store } : {}),
    ...extra,
  };
}

/**
 * Opens a suite's in-process replicas, each its own container, engine and store connection, as
 * a separate process has; each goes into `hosts`, which the suite closes after the test. What
 * the suites differ in comes from `defaults`: their config, environment and logger.
 */
export function replicaOpener(
  hosts: Host[],
  defaults: { config(): HostConfig; env(): NodeJS.ProcessEnv; logger?(): Logger },
): (config?: HostConfig, env?: NodeJS.ProcessEnv) => Promise<Host> {
  return async (config = defaults.config(), env = defaults.env()) => {
    const logger = defaults.logger?.();
    const host = await createHost(config, { configDir: fixtureApp, env, ...(logger ? { logger } : {}) });
    hosts.push(host);
    return host;
  };
}

function replicaEnv(s: StoreUnderTest): Record<string, string> {
  return {
    ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
    ECHO_KEY: 'echo-static-key-for-replicas',
    ...s.env,
  };
}

/**
 * Runs `scenario` with `count` in-process replicas (each its own container and connection: a
 * host, or a host and its HTTP server), opened one after another and closed after.
 */
async function withReplicas<R extends { close(): Promise<void> }, T>(
  count: number,
  open: () => Promise<R>,
  scenario: (replicas: R[]) => Promise<T>,
): Promise<T> {
  const replicas: R[] = [];
  try {
    for (let i = 0; i < count; i += 1) replicas.push(await open());
    return await scenario(replicas);
  } finally {
    await Promise.all(replicas.map((h) => h.close()));
  }
}

const echoReplicas = <T>(s: StoreUnderTest, scenario: (replicas: Host[]) => Promise<T>) =>
  withReplicas(2, () => createHost(echoConfigOn(s), { configDir: fixtureApp, env: replicaEnv(s) }), scenario);

/** A token for `userId` as an authorization on some replica would have stored it. */
const authorize = (s: StoreUnderTest, host: Host, userId: string, expiresAt = Date.now() + 3_600_000) =>
  storeAuthorized(s.oauth, tokenStoreOf(host), userId, expiresAt);

/**
 * Tokens one replica stored are sealed in the store, read and used by the other, listed and
 * ended from either (listing walks every master of a cluster).
 */
export async function tokensOnEveryReplica(s: StoreUnderTest): Promise<void> {
  await echoReplicas(s, async ([a, b]) => {
    const users = Array.from({ length: 12 }, (_, i) => `user-${i}`);
    const tokens = await Promise.all(users.map((u) => authorize(s, a!, u)));
    for (const key of await s.keys('toolhost:token:*')) {
      const raw = (await s.admin.get(key)) ?? '';
      for (const t of tokens) expect(raw).not.toContain(t.accessToken);
    }
    for (const [i, u] of users.entries())
      expect(await tokenStoreOf(b!).get('echo-auth', u)).toEqual(tokens[i]);
    const listed = await listConnections(b!);
    expect(listed.map((c) => c.userId).sort()).toEqual([...users].sort());

    const outcomes = await Promise.all([getItem(a!, 'i1', 'user-3'), getItem(b!, 'i2', 'user-3')]);
    expect(outcomes.map(errorCode)).toEqual([undefined, undefined]);
    expect(s.upstream.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${tokens[3]!.accessToken}`,
      `Bearer ${tokens[3]!.accessToken}`,
    ]);
    expect(await disconnect(b!, 'user-3', 'echo-auth')).toMatchObject({ existed: true });
    expect(await tokenStoreOf(a!).get('echo-auth', 'user-3')).toBeUndefined();
    expect(await listConnections(a!)).toHaveLength(11);
  });
}

/** A replica's copy of a token (kept an hour) is dropped as soon as another changes or deletes it. */
export async function tokenChangeReachesEveryReplica(s: StoreUnderTest): Promise<void> {
  const channels = await RedisChannels.open(s.admin);
  try {
    const watching = new RedisTokenStore(
      s.admin,
      await openSharedCipher(s.admin, TokenCipher, s.tokenKey),
      channels,
      3_600_000,
    );
    await watching.listenForChanges();
    const writer = await RedisTokenStore.open(s.admin, TokenCipher, s.tokenKey);
    const until = async (want: string | undefined) => {
      const deadline = Date.now() + 10_000;
      let seen = await watching.recent('echo-auth', 'alice');
      while (seen?.accessToken !== want && Date.now() < deadline) {
        await sleep(10);
        seen = await watching.recent('echo-auth', 'alice');
      }
      return seen?.accessToken;
    };
    await writer.set('echo-auth', 'alice', { accessToken: 'first-token', scopes: ['items.read'] });
    expect(await until('first-token')).toBe('first-token');
    await writer.set('echo-auth', 'alice', { accessToken: 'second-token', scopes: ['items.read'] });
    expect(await until('second-token')).toBe('second-token');
    await writer.delete('echo-auth', 'alice');
    expect(await until(undefined)).toBeUndefined();
  } finally {
    await channels.close();
  }
}

/** 20 concurrent calls on two replicas with an expired token: one refresh, its lock gone after. */
export async function oneRefreshAcrossReplicas(s: StoreUnderTest): Promise<void> {
  await echoReplicas(s, async ([a, b]) => {
    const old = await authorize(s, a!, 'alice', Date.now() - 1000);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => getItem(i % 2 === 0 ? a! : b!, `i${i}`)),
    );
    expect(outcomes.map(errorCode)).toEqual(Array(20).fill(undefined));
    // Rotating refresh tokens: a second refresh with the old one would have been refused.
    expect(s.oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: old.refreshToken }]);
    const stored = (await tokenStoreOf(b!).get('echo-auth', 'alice'))!;
    expect(stored.accessToken).not.toBe(old.accessToken);
    expect(stored.refreshToken).not.toBe(old.refreshToken);
    expect(new Set(s.upstream.requests.map((r) => r.headers.authorization))).toEqual(
      new Set([`Bearer ${stored.accessToken}`]),
    );
    expect(await s.keys('toolhost:refresh-lock:*')).toEqual([]);
    // The calls that waited for the other replica's refresh are counted.
    const waits = [await a!.metrics(), await b!.metrics()].map((m) =>
      Number(/toolhost_shared_wait_seconds_count\{kind="refresh_lock"\} (\d+)/.exec(m)?.[1] ?? 0),
    );
    expect(waits[0]! + waits[1]!).toBeGreaterThan(0);
  });
}

/**
 * A keyed write sent on A is answered on B from its stored outcome, in turn and at once, sent
 * once; other arguments under the key conflict; a preview made on A is applied on B, once.
 */
export async function writesAcrossReplicas(s: StoreUnderTest): Promise<void> {
  // Each answer numbered, so that a stored outcome is told apart from a second request's.
  let served = 0;
  s.upstream.respond(() => ({ status: 200, body: { n: ++served } }));
  const open = () => writeHost(s.upstream.url, s.store ? { store: s.store } : {}, s.env);
  await withReplicas(2, open, async ([one, two]) => {
    const update = (title = 'T') => ({ id: 'thing-1', title });
    const keyed = (host: Host, key: string, title?: string) =>
      host.callTool('WriteApi.UpdateThing', update(title), { idempotencyKey: key });
    const first = await keyed(one!, 'r-turn');
    expect(first.ok).toBe(true);
    expect(await keyed(two!, 'r-turn')).toEqual(first);
    expect(s.upstream.requests).toHaveLength(1);
    const together = await Promise.all(
      Array.from({ length: 10 }, (_, i) => keyed(i % 2 ? one! : two!, 'r-once')),
    );
    for (const o of together) expect(o).toEqual(together[0]);
    expect(s.upstream.requests).toHaveLength(2);
    expect(errorCode(await keyed(two!, 'r-once', 'X'))).toBe('idempotency_conflict');

    const made = await one!.previewToolCall('WriteApi.UpdateThing', update());
    if (!made.ok || made.kind !== 'preview') throw new Error(`no preview: ${JSON.stringify(made)}`);
    expect((await two!.applyPreview(made.preview.preview_id)).ok).toBe(true);
    expect(errorCode(await one!.applyPreview(made.preview.preview_id))).toBe('preview_used');
    expect(s.upstream.requests).toHaveLength(3);
  });
}

/** A pending authorization started on A is found, opened and taken (once) on B; its keys go with it. */
export async function pendingAuthorizationAcrossReplicas(s: StoreUnderTest): Promise<void> {
  await echoReplicas(s, async ([a, b]) => {
    const sharedOf = (host: Host) => resolveService(containerOf(host), SHARED_STORE)!;
    const onA = sharedOf(a!).flows('echo-auth').pending;
    const onB = sharedOf(b!).flows('echo-auth').pending;
    await onA.add('state-1', {
      userId: 'alice',
      flowId: 'flow-1',
      codeVerifier: 'verifier-never-in-clear',
      scopes: ['items.read'],
      authorizeUrl: s.oauth.authorizeUrl,
    });
    for (const key of await s.keys('toolhost:oauth:*'))
      if ((await s.admin.type(key)) === 'string')
        expect(await s.admin.get(key)).not.toContain('verifier-never-in-clear');
    expect((await onB.byFlow('flow-1'))?.state).toBe('state-1');
    await onB.markOpened('flow-1');
    expect((await onA.get('state-1'))?.opened).toBe(true);
    const taken = await Promise.all([onA.take('state-1'), onB.take('state-1')]);
    expect(taken.filter(Boolean).map((t) => t!.codeVerifier)).toEqual(['verifier-never-in-clear']);
    expect(await s.keys('toolhost:oauth:*')).toEqual([]);
  });
}

/**
 * Two replicas together send no more than 5 requests a second to one base: the pacer lets at
 * most 5 depart in any 1.1 s, each counted from when it left, so any 6 departures span at least
 * 1.1 s, and any 6 arrivals at least the vendor's second (the other 0.1 s is the network's).
 */
export async function pacingAcrossReplicas(s: StoreUnderTest): Promise<void> {
  const arrivals: number[] = [];
  s.upstream.respond((req) => {
    arrivals.push(req.receivedAt);
    return { status: 200, body: { records: [] } };
  });
  const open = () =>
    createHost(
      { toolSets: { GridApi: { baseUrl: s.upstream.url } }, ...(s.store ? { store: s.store } : {}) },
      {
        configDir: repoRoot,
        pluginPackages: ['@toolhost/plugin-grid'],
        env: { ...replicaEnv(s), GRID_AUTH_PROVIDER_TOKEN: 'grid-static-token-for-tests' },
      },
    );
  await withReplicas(2, open, async ([a, b]) => {
    const { result: outcomes, ...spans } = await pacedSpans(s.upstream.url, arrivals, 6, () =>
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a! : b!).callTool('GridApi.ListGridRecords', {
            base_id: 'appAAAAAAAAAAAAAA',
            table_id_or_name: 'tbl1',
          }),
        ),
      ),
    );
    expect(outcomes.map(errorCode)).toEqual(Array(40).fill(undefined));
    expectPaced(spans, 6, 40);
  });
}

/** Two HTTP replicas sharing the store (each served as `toolhost serve --http` serves), behind a loopback balancer. */
interface Fleet {
  a: HttpReplica;
  b: HttpReplica;
  balancer: Balancer;
  origin(r: HttpReplica): string;
  /** An MCP client (of Alice, unless another token is given), closed with the fleet. */
  connect(
    url: string,
    options?: { token?: string; capabilities?: Record<string, unknown> },
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
}

/** Runs `scenario` against a fleet whose config is the echo tool set's plus `extra`; stops it after. */
async function withFleet(
  s: StoreUnderTest,
  extra: Partial<HostConfig>,
  scenario: (fleet: Fleet) => Promise<void>,
): Promise<void> {
  const balancer = await startBalancer();
  const clients: Client[] = [];
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: s.upstream.url } },
    // Links and redirect URIs name the balancer, as behind a real one.
    http: { publicUrl: balancer.url },
    auth: { providers: echoAuthProviders(s.oauth) },
    ...(s.store ? { store: s.store } : {}),
    ...extra,
  };
  const env = {
    ...replicaEnv(s),
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE_ACCESS_TOKEN},bob:${BOB_ACCESS_TOKEN}`,
  };
  const origin = (r: HttpReplica) => new URL(r.url).origin;
  try {
    await withReplicas(
      2,
      () => serveHttpHost(config, env),
      async (replicas) => {
        balancer.targets = replicas.map(origin);
        try {
          await scenario({
            a: replicas[0]!,
            b: replicas[1]!,
            balancer,
            origin,
            async connect(url, options = {}) {
              const client = new Client(
                { name: 'replica-scenario', version: '0.0.0' },
                { capabilities: options.capabilities ?? {} },
              );
              const transport = new StreamableHTTPClientTransport(new URL(url), {
                requestInit: { headers: { authorization: `Bearer ${options.token ?? ALICE_ACCESS_TOKEN}` } },
              });
              await client.connect(transport);
              clients.push(client);
              return { client, transport };
            },
          });
        } finally {
          await Promise.all(clients.map((c) => c.close().catch(() => {})));
        }
      },
    );
  } finally {
    await balancer.close();
  }
}

const getItemOver = (c: Client, id = 'i1') =>
  c.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } }) as Promise<CallToolResult>;

/** A valid token of Alice's for `scope`, in the store as a replica would have stored it. */
export async function storeAliceToken(s: StoreUnderTest, scope: string): Promise<string> {
  const store = await RedisTokenStore.open(s.admin, TokenCipher, s.tokenKey);
  const issued = s.oauth.mint(scope);
  await store.set('echo-auth', 'alice', {
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    expiresAt: Date.now() + 3_600_000,
    scopes: [scope],
  });
  return issued.access_token;
}

/**
 * The authorization link one replica hands out opens on A (which binds the browser) and its
 * callback lands on B; both then use the token, and the flow's keys are gone. The code
 * verifier never sits in the store in clear.
 */
export async function browserAuthorizationAcrossReplicas(s: StoreUnderTest): Promise<void> {
  await withFleet(s, {}, async ({ a, b, balancer, origin, connect }) => {
    const onA = (await connect(a.url)).client;
    const first = await getItemOver(onA, 'i1');
    expect(first.isError).toBe(true);
    const error = (first.structuredContent as { error: { code: string; authorization: { url: string } } })
      .error;
    expect(error.code).toBe('authorization_required');
    const link = new URL(error.authorization.url);
    expect(link.origin).toBe(balancer.url);

    balancer.pick = (req) => (req.url?.startsWith('/oauth/start/') ? origin(a) : origin(b));
    const flowKeys = (await s.keys('toolhost:oauth:*')).filter((k) => k.includes(':flow:'));
    expect(flowKeys.length).toBeGreaterThan(0);
    for (const key of flowKeys) {
      const raw = (await s.admin.get(key))!;
      expect(raw).not.toContain(link.searchParams.get('flow'));
      expect(raw).not.toMatch(/codeVerifier|code_verifier|authorizeUrl/);
    }
    const browser = new Browser();
    const callback = await startFlow(browser, link.href, ALICE_ACCESS_TOKEN);
    const done = await browser.open(callback);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Authorization complete');
    expect(balancer.forwarded.map((f) => [f.path.split('?')[0], f.target])).toEqual([
      ['/oauth/start/echo-auth', origin(a)],
      ['/oauth/start/echo-auth', origin(a)],
      ['/oauth/callback/echo-auth', origin(b)],
    ]);

    const onB = (await connect(b.url)).client;
    expect((await getItemOver(onA, 'on-a')).isError).toBeFalsy();
    expect((await getItemOver(onB, 'on-b')).isError).toBeFalsy();
    expect(s.upstream.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer access-1',
      'Bearer access-1',
    ]);
    // The flow was taken once: its keys are gone.
    expect((await s.keys('toolhost:oauth:*')).filter((k) => k.includes(':flow:'))).toEqual([]);
  });
}

/** A client told on A to authorize by URL elicitation is notified when the callback lands on B. */
export async function elicitationCompletionAcrossReplicas(s: StoreUnderTest): Promise<void> {
  await withFleet(s, {}, async ({ a, b, balancer, origin, connect }) => {
    const { client } = await connect(a.url, { capabilities: { elicitation: { url: {} } } });
    const completed = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/elicitation/complete', (n) =>
        resolve(n.params.elicitationId),
      ),
    );
    const error = await getItemOver(client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32042);
    const elicitation = (
      (error as ProtocolError).data as { elicitations: { url: string; elicitationId: string }[] }
    ).elicitations[0]!;

    balancer.pick = () => origin(b);
    const browser = new Browser();
    expect((await browser.open(await startFlow(browser, elicitation.url, ALICE_ACCESS_TOKEN))).status).toBe(
      200,
    );
    expect(await completed).toBe(elicitation.elicitationId);
    expect((await getItemOver(client)).isError).toBeFalsy();
  });
}

/** The person's answer to a confirmation A asked for lands on B, and is handed to A: sent once. */
export async function confirmationAcrossReplicas(s: StoreUnderTest): Promise<void> {
  await withFleet(s, { tools: { confirmWrites: true } }, async ({ a, b, balancer, origin, connect }) => {
    await storeAliceToken(s, 'items.write');
    // Everything goes to A until the person answers; the answer goes to B.
    let answered = false;
    balancer.pick = (req) => (answered && req.method === 'POST' ? origin(b) : origin(a));
    const { client } = await connect(`${balancer.url}/mcp`, { capabilities: { elicitation: { form: {} } } });
    const shown: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      shown.push((request.params as { message: string }).message);
      answered = true;
      return { action: 'accept', content: { send: true } };
    });
    const result = await client.callTool({ name: 'EchoApi_DeleteItem', arguments: { item_id: 'i9' } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(shown).toHaveLength(1);
    const answer = balancer.forwarded.filter((f) => f.method === 'POST').at(-1)!;
    expect(answer.target).toBe(origin(b));
    expect(s.upstream.requests).toHaveLength(1);
    expect(s.upstream.requests[0]).toMatchObject({ method: 'DELETE', path: '/items/i9' });
  });
}

/**
 * A raw MCP POST of `body` (a message or a batch) to a replica under `session`, with `token`, for
 * what the SDK client would not send; `headers` replace a well-formed client's (undefined: left out).
 */
export function postToSession(
  url: string,
  token: string,
  session: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<Response> {
  const sent = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-11-25',
    ...headers,
  };
  return fetch(url, {
    method: 'POST',
    // A header given as undefined is left out (a request without it).
    headers: Object.entries(sent).filter((h): h is [string, string] => h[1] !== undefined),
    body: JSON.stringify(body),
  });
}

/**
 * One session whose requests alternate between the replicas (round robin) is served on both,
 * for its user only, and ended on both by one DELETE.
 */
export async function sessionAcrossReplicas(s: StoreUnderTest): Promise<void> {
  await withFleet(s, {}, async ({ a, b, balancer, origin, connect }) => {
    const { client, transport } = await connect(`${balancer.url}/mcp`);
    const accessToken = await storeAliceToken(s, 'items.read');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('EchoApi_GetItem');
    for (let i = 0; i < 4; i += 1) expect((await getItemOver(client, `i${i}`)).isError).toBeFalsy();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    const session = transport.sessionId!;
    const posts = balancer.forwarded.filter((f) => f.method === 'POST');
    expect(posts[0]!.session).toBeUndefined(); // initialize
    expect(posts.slice(1).every((f) => f.session === session)).toBe(true);
    expect(new Set(posts.map((f) => f.target))).toEqual(new Set([origin(a), origin(b)]));
    expect(posts.every((f) => f.status === 200 || f.status === 202)).toBe(true);
    expect(s.upstream.requests.map((r) => r.headers.authorization)).toEqual(
      Array(4).fill(`Bearer ${accessToken}`),
    );
    expect(b.logs() + a.logs()).toContain('session resumed from the shared store');

    // Another user's token cannot ride on the session, on whichever replica.
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    expect((await postToSession(a.url, BOB_ACCESS_TOKEN, session, ping)).status).toBe(403);
    expect((await postToSession(b.url, BOB_ACCESS_TOKEN, session, ping)).status).toBe(403);
    expect((await postToSession(b.url, ALICE_ACCESS_TOKEN, session, ping)).status).toBe(200);
    expect((await postToSession(b.url, ALICE_ACCESS_TOKEN, 'no-such-session', ping)).status).toBe(404);

    // Ended on one replica (DELETE), ended on all: at once on the one that took the DELETE, on
    // the other once the end's message reaches it (through a cluster's bus, a few ms later).
    await transport.terminateSession();
    const ended = balancer.forwarded.findLast((f) => f.method === 'DELETE')!.target;
    const [here, elsewhere] = origin(a) === ended ? [a, b] : [b, a];
    expect((await postToSession(here.url, ALICE_ACCESS_TOKEN, session, ping)).status).toBe(404);
    await vi.waitFor(
      async () =>
        expect((await postToSession(elsewhere.url, ALICE_ACCESS_TOKEN, session, ping)).status).toBe(404),
      { timeout: 2000, interval: 20 },
    );
  });
}

/**
 * A result over the budget, made on one HTTP replica, is read and listed through its
 * resource_link on the other by its owner, and by no other user.
 */
export async function largeResultOnOtherReplica(input: {
  upstream: RecordingUpstream;
  /** The replicas' environment (the store's URL and key, where the suite sets them there). */
  env: Record<string, string>;
  /** The config's store section, where the suite sets the store there. */
  store?: HostConfig['store'];
}): Promise<void> {
  const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' };
  const big = { items: Array.from({ length: 2000 }, (_, i) => ({ id: `item-${i}`, secret: `s-${i}` })) };
  input.upstream.respond(() => ({ status: 200, body: big }));
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: input.upstream.url } },
    http: { accessTokens: TOKENS },
    mcp: { maxResultBytes: 6000 },
    ...(input.store ? { store: input.store } : {}),
  };
  const env = { ...input.env, ECHO_AUTH_TOKEN: 'tok' };
  await withReplicas(
    2,
    () => serveHttpHost(config, env),
    async ([a, b]) => {
      const clients: Client[] = [];
      const connect = async (url: string, token: string) => {
        const client = new Client({ name: 'results-replicas', version: '0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        clients.push(client);
        return client;
      };
      try {
        const onA = await connect(a!.url, TOKENS.alice);
        const result = await onA.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'big' } });
        const uri = (result.content as { type: string; uri?: string }[]).find(
          (c) => c.type === 'resource_link',
        )!.uri!;
        const onB = await connect(b!.url, TOKENS.alice);
        const read = await onB.readResource({ uri });
        expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(big);
        expect((await onB.listResources()).resources.map((r) => r.uri)).toContain(uri);
        const bobOnB = await connect(b!.url, TOKENS.bob);
        await expect(bobOnB.readResource({ uri })).rejects.toThrow(/Resource not found/);
        expect((await bobOnB.listResources()).resources).toEqual([]);
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => {})));
      }
    },
  );
}

const errorOf = (o: ToolOutcome | { ok: boolean }) =>
  'error' in o ? (o.error as { code: string; message: string }) : undefined;

/**
 * A user's previews and idempotency keys are bounded across the replicas, not per replica:
 * filled half on each, the next is refused on either, naming the setting; another user goes
 * on; once the user's records expire, their places are free again.
 */
export async function perUserBoundsAcrossReplicas(input: {
  upstream: RecordingUpstream;
  env: Record<string, string>;
  store?: HostConfig['store'];
}): Promise<void> {
  input.upstream.respond(() => ({ status: 200, body: { ok: true } }));
  const config: HostConfig = {
    tools: { previewsPerUser: 4, previewTtlSeconds: 1, idempotencyKeysPerUser: 4, idempotencyTtlSeconds: 2 },
    ...(input.store ? { store: input.store } : {}),
  };
  const replicas: Host[] = [];
  try {
    replicas.push(await writeHost(input.upstream.url, config, input.env));
    replicas.push(await writeHost(input.upstream.url, config, input.env));
    const [a, b] = replicas as [Host, Host];
    const update = { id: 'thing-1', title: 'T' };
    const preview = (host: Host, userId: string) =>
      host.previewToolCall('WriteApi.UpdateThing', update, { userId });
    const keyed = (host: Host, userId: string, key: string) =>
      host.callTool('WriteApi.UpdateThing', update, { userId, idempotencyKey: key });

    // Both replicas at once: the bound holds however the user's calls interleave.
    const made = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => preview(i % 2 ? a : b, 'alice')));
    expect(made.filter((o) => o.ok)).toHaveLength(4);
    for (const host of [a, b]) {
      const refused = errorOf(await preview(host, 'alice'));
      expect(refused?.code).toBe('store_unavailable');
      expect(refused?.message).toContain('tools.previewsPerUser');
      expect(refused?.message).toContain('across the replicas');
    }
    expect((await preview(b, 'bob')).ok).toBe(true);

    const sent = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => keyed(i % 2 ? a : b, 'alice', `k-${i}`)));
    expect(sent.filter((o) => o.ok)).toHaveLength(4);
    for (const host of [a, b]) {
      const refused = errorOf(await keyed(host, 'alice', 'k-more'));
      expect(refused?.code).toBe('store_unavailable');
      expect(refused?.message).toContain('tools.idempotencyKeysPerUser');
    }
    // The refused ones were not sent; another user's key goes.
    expect(input.upstream.requests).toHaveLength(4);
    expect((await keyed(a, 'bob', 'k-0')).ok).toBe(true);

    // Previews are kept twice their life (2 s), keys theirs (2 s): then their places are free.
    await sleep(2300);
    expect((await preview(a, 'alice')).ok).toBe(true);
    expect((await keyed(b, 'alice', 'k-after')).ok).toBe(true);
  } finally {
    await Promise.all(replicas.map((h) => h.close()));
  }
}
