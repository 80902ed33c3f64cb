import type { ToolOutcome } from '@toolhost/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type FakeOAuthServer, startFakeOAuthServer } from './fake-oauth-server.js';
import {
  closeClient,
  type RedisServer,
  redisClient,
  type Sentinels,
  startRedisServer,
  startReplica,
  startSentinels,
} from './redis-server.js';
import {
  oneRefreshAcrossReplicas,
  perUserBoundsAcrossReplicas,
  type StoreUnderTest,
  writesAcrossReplicas,
} from './replica-scenarios.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// A master, its replica and one Sentinel, all real processes: the host finds the master
// through the Sentinel and follows the failover when the master dies.
let master: RedisServer;
let replica: RedisServer;
let sentinel: Sentinels;
let upstream: RecordingUpstream;
let host: Host;
let oauth: FakeOAuthServer;
let admin: Redis;

const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);
const CREATE = { mode: 'execute', request_body: JSON.stringify({ name: 'n1' }) };

beforeAll(async () => {
  master = await startRedisServer();
  replica = await startReplica(master);
  sentinel = await startSentinels(master.port, 1);
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'made' } }));
  oauth = await startFakeOAuthServer();
  // The failover below stops the master under it.
  admin = redisClient(master.url);
  host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      auth: {
        providers: {
          'echo-auth': {
            clientId: 'client-123',
            authorizeUrl: 'http://127.0.0.1:9/authorize',
            tokenUrl: 'http://127.0.0.1:9/token',
            redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth',
          },
        },
      },
      // The URL's address is not used: the Sentinel names the master.
      store: { redisUrl: 'redis://unused.invalid:6379', sentinels: sentinel.nodes },
    },
    {
      configDir: fixtureApp,
      env: { TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-sentinel', ECHO_KEY: 'echo-static-key' },
    },
  );
}, 60_000);

afterAll(async () => {
  await host?.close();
  if (admin) await closeClient(admin);
  await oauth?.close();
  await sentinel?.close();
  await replica?.close();
  await master?.close();
  await upstream?.close();
});

beforeEach(() => {
  upstream.reset();
  oauth.reset();
  upstream.respond(() => ({ status: 201, body: { id: 'made' } }));
});

/** The scenarios every deployment runs, through the Sentinel (before its failover below). */
const suite = (): StoreUnderTest => ({
  upstream,
  oauth,
  tokenKey: 'token-encryption-key-for-sentinel',
  env: { TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-sentinel' },
  store: { redisUrl: 'redis://unused.invalid:6379', sentinels: sentinel.nodes },
  admin,
  keys: (pattern) => admin.keys(pattern),
});

describe('shared store through Redis Sentinel: replicas', () => {
  beforeEach(async () => {
    await admin.flushall();
  });

  it('honours idempotency keys and previews across replicas: sent once, answered on either', async () => {
    await writesAcrossReplicas(suite());
  });

  it('refreshes an expired token once for 20 concurrent calls on two replicas', async () => {
    await oneRefreshAcrossReplicas(suite());
  });

  it("bounds a user's previews and idempotency keys across the replicas", async () => {
    await perUserBoundsAcrossReplicas(suite());
  });
});

describe('shared store through Redis Sentinel', () => {
  it('finds the master through the Sentinel, and keeps tokens and idempotency keys across a failover', async () => {
    const token = { accessToken: 'sentinel-access', scopes: ['items.read'] };
    await tokenStoreOf(host).set('echo-auth', 'alice', token);
    const first = await host.callTool('EchoApi.CreateItem', CREATE, {
      userId: 'alice',
      idempotencyKey: 'k1',
    });
    expect(first.ok).toBe(true);
    const direct = redisClient(master.url);
    expect(await direct.exists('toolhost:token:echo-auth:alice')).toBe(1);
    // Replicated before the master dies.
    expect(await direct.wait(1, 5000)).toBe(1);
    await closeClient(direct);

    await master.stop();
    const deadline = Date.now() + 20_000;
    let read = await tokenStoreOf(host)
      .get('echo-auth', 'alice')
      .catch(() => undefined);
    while (read === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      read = await tokenStoreOf(host)
        .get('echo-auth', 'alice')
        .catch(() => undefined);
    }
    expect(read).toEqual(token);
    const promoted = redisClient(replica.url);
    expect((await promoted.info('replication')).includes('role:master')).toBe(true);
    await closeClient(promoted);
    const again = await host.callTool('EchoApi.CreateItem', CREATE, {
      userId: 'alice',
      idempotencyKey: 'k1',
    });
    expect(code(again)).toBe(undefined);
    expect(again).toEqual(first);
    expect(upstream.requests).toHaveLength(1);
  }, 60_000);
});
