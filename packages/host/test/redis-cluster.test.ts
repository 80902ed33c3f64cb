import type { StoredToken, ToolOutcome } from '@toolhost/core';
import type { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { SHARED_STORE } from '../src/assemble-host.js';
import { doctorReport } from '../src/cli/doctor.js';
import type { HostConfig } from '../src/config/host-config.js';
import { containerOf, createHost, type Host } from '../src/host.js';
import { resolveService } from '../src/services.js';
import { type FakeOAuthServer, fakeClient, startFakeOAuthServer } from './fake-oauth-server.js';
import {
  closeClient,
  clusterClient,
  type RedisCluster,
  startRedisCluster,
  startRedisServer,
} from './redis-server.js';
import {
  browserAuthorizationAcrossReplicas,
  confirmationAcrossReplicas,
  elicitationCompletionAcrossReplicas,
  largeResultOnOtherReplica,
  oneRefreshAcrossReplicas,
  pacingAcrossReplicas,
  pendingAuthorizationAcrossReplicas,
  perUserBoundsAcrossReplicas,
  type StoreUnderTest,
  sessionAcrossReplicas,
  tokenChangeReachesEveryReplica,
  tokensOnEveryReplica,
  writesAcrossReplicas,
} from './replica-scenarios.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// The shared-store scenarios through a real three-master Redis Cluster: every command, MULTI
// and script must keep its keys in one hash slot (else Redis answers CROSSSLOT), and listing
// must walk every master.
const TOKEN_KEY = 'token-encryption-key-for-the-cluster';

let cluster: RedisCluster;
let admin: Cluster;
let oauth: FakeOAuthServer;
let upstream: RecordingUpstream;
const hosts: Host[] = [];

const storeSection = () => ({ cluster: cluster.seeds });

function echoConfig(extra: Partial<HostConfig> = {}): HostConfig {
  return {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    auth: {
      providers: {
        'echo-auth': {
          clientId: fakeClient.clientId,
          authorizeUrl: oauth.authorizeUrl,
          tokenUrl: oauth.tokenUrl,
          redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth',
        },
      },
    },
    store: storeSection(),
    ...extra,
  };
}

function replicaEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    // Credentials and TLS only: the nodes come from store.cluster.
    TOOLHOST_REDIS_URL: 'redis://127.0.0.1:1',
    TOOLHOST_TOKEN_KEY: TOKEN_KEY,
    ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
    ECHO_KEY: 'echo-static-key-for-the-cluster',
    ...extra,
  };
}

async function replica(config: HostConfig = echoConfig(), env = replicaEnv()): Promise<Host> {
  const host = await createHost(config, { configDir: fixtureApp, env });
  hosts.push(host);
  return host;
}

/** This suite's store for the scenarios every deployment runs. */
const suite = (): StoreUnderTest => ({
  upstream,
  oauth,
  tokenKey: TOKEN_KEY,
  env: replicaEnv(),
  store: storeSection(),
  admin,
  keys: async (pattern) => (await keysPerMaster(pattern)).flat(),
});

const sharedOf = (host: Host) => resolveService(containerOf(host), SHARED_STORE)!;
const getItem = (host: Host, id: string, userId = 'alice') =>
  host.callTool('EchoApi.GetItem', { item_id: id }, { userId });
const errorCode = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

/** Keys matching `pattern` on each master, in the order of `admin.nodes('master')`. */
const keysPerMaster = (pattern: string) => Promise.all(admin.nodes('master').map((n) => n.keys(pattern)));

async function authorize(
  host: Host,
  userId: string,
  expiresAt = Date.now() + 3_600_000,
): Promise<StoredToken> {
  const issued = oauth.mint('items.read');
  const token = {
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    expiresAt,
    scopes: ['items.read'],
  };
  await tokenStoreOf(host).set('echo-auth', userId, token);
  return token;
}

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  admin = clusterClient(cluster.seeds.map((s) => ({ host: '127.0.0.1', port: Number(s.split(':')[1]) })));
  oauth = await startFakeOAuthServer();
  upstream = await startRecordingUpstream();
}, 60_000);
afterAll(async () => {
  if (admin) await closeClient(admin);
  await cluster?.close();
  await oauth?.close();
  await upstream?.close();
});
beforeEach(async () => {
  oauth.reset();
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { ok: true } }));
  await Promise.all(admin.nodes('master').map((n) => n.flushall()));
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe('shared store (Redis Cluster): start-up', () => {
  it('shares the store with store.cluster alone, no Redis URL given', async () => {
    const { TOOLHOST_REDIS_URL: _url, ...env } = replicaEnv();
    const a = await replica(echoConfig(), env);
    const b = await replica(echoConfig(), env);
    const token = await authorize(a, 'alice');
    expect(await tokenStoreOf(b).get('echo-auth', 'alice')).toEqual(token);
    expect(sharedOf(b).redis.isCluster).toBe(true);
  });

  it('refuses store.cluster with store.sentinels, no node answering, a wrong password, or a database in the URL', async () => {
    await expect(
      replica(echoConfig({ store: { cluster: cluster.seeds, sentinels: ['127.0.0.1:26379'] } })),
    ).rejects.toThrow(/store.cluster and store.sentinels are both set/);
    const locked = await startRedisServer([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--requirepass',
      'the-right-cluster-password',
    ]);
    try {
      const failure = replica(
        echoConfig({ store: { cluster: [`127.0.0.1:${locked.port}`] } }),
        replicaEnv({ TOOLHOST_REDIS_URL: 'redis://:a-wrong-cluster-password@127.0.0.1:1' }),
      );
      await expect(failure).rejects.toThrow(/Redis refused the credentials/);
      await expect(failure).rejects.not.toThrow(/a-wrong-cluster-password/);
    } finally {
      await locked.close();
    }
    await expect(
      replica(echoConfig(), replicaEnv({ TOOLHOST_REDIS_URL: 'redis://127.0.0.1:1/3' })),
    ).rejects.toThrow(/database 3: a Redis Cluster has database 0 only/);
  });
});

describe('shared store (Redis Cluster): tokens', () => {
  it("drops a replica's copy of a token when another changes it (pub/sub across the nodes)", async () => {
    await tokenChangeReachesEveryReplica(suite());
  });

  it('keeps tokens sealed in the cluster, read, used, listed and ended from every replica', async () => {
    await tokensOnEveryReplica(suite());
  });

  it('spreads tokens over the masters, and doctor counts them all', async () => {
    const a = await replica();
    const b = await replica();
    const users = Array.from({ length: 12 }, (_, i) => `user-${i}`);
    await Promise.all(users.map((u) => authorize(a, u)));
    // The tokens spread over the masters: a SCAN of one node would miss some.
    const spread = await keysPerMaster('toolhost:token:*');
    expect(spread.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    const { text } = await doctorReport(b, { env: replicaEnv() });
    expect(text).toContain(`in the Redis Cluster of ${cluster.seeds.join(', ')}`);
    expect(text).toContain('Tokens in Redis: 12, all open with this TOOLHOST_TOKEN_KEY');
  });

  it('refreshes an expired token once for 20 concurrent calls on two replicas', async () => {
    await oneRefreshAcrossReplicas(suite());
  });
});

describe('shared store (Redis Cluster): writes and authorizations', () => {
  it('honours idempotency keys and previews across replicas: sent once, answered on either', async () => {
    await writesAcrossReplicas(suite());
  });

  it('completes on replica B a pending authorization replica A started, once, its keys in one slot', async () => {
    await pendingAuthorizationAcrossReplicas(suite());
  });

  it('completes in a browser, on replica B behind a balancer, the authorization replica A handed out', async () => {
    await browserAuthorizationAcrossReplicas(suite());
  }, 60_000);

  it('tells a client waiting on replica A (URL elicitation) when the callback landed on replica B', async () => {
    await elicitationCompletionAcrossReplicas(suite());
  }, 60_000);

  it("hands the person's confirmation to the replica that asked, wherever it lands", async () => {
    await confirmationAcrossReplicas(suite());
  }, 60_000);

  it('serves one session whose requests alternate between two replicas, for its user only', async () => {
    await sessionAcrossReplicas(suite());
  }, 60_000);

  it("serves a large result's resource_link from the other replica, to its owner only", async () => {
    await largeResultOnOtherReplica(suite());
  }, 60_000);

  it("bounds a user's previews and idempotency keys across the replicas (one slot per user)", async () => {
    await perUserBoundsAcrossReplicas(suite());
  });
});

describe('shared store (Redis Cluster): faults', () => {
  it('answers store_unavailable while the master holding the token is down, and recovers when it returns', async () => {
    const a = await replica();
    const token = await authorize(a, 'alice');
    expect(errorCode(await getItem(a, 'i1'))).toBeUndefined();
    // The master serving the key's slot; the others answer MOVED.
    const owners = await Promise.all(
      admin.nodes('master').map((n) =>
        n.exists('toolhost:token:echo-auth:alice').then(
          (has) => (has ? n.options.port : 0),
          () => 0,
        ),
      ),
    );
    const holderPort = owners.find((p) => p)!;
    const holder = cluster.nodes.find((n) => n.port === holderPort)!;
    await holder.stop({ save: true });
    const started = Date.now();
    const down = await getItem(a, 'i2');
    expect(down.ok ? undefined : down.error).toMatchObject({ code: 'store_unavailable', retryable: true });
    // Within the store's command timeout (5 s by default), not hanging: 3 s more for a loaded
    // machine to notice the node gone and answer.
    expect(Date.now() - started).toBeLessThan(8000);
    await holder.start();
    const deadline = Date.now() + 20_000;
    let back = await getItem(a, 'i3');
    while (!back.ok && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      back = await getItem(a, 'i3');
    }
    expect(errorCode(back)).toBeUndefined();
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${token.accessToken}`,
      `Bearer ${token.accessToken}`,
    ]);
  }, 60_000);
});

describe('shared store (Redis Cluster): pacing', () => {
  it('lets no more than 5 requests a second reach one base from two replicas', async () => {
    await pacingAcrossReplicas(suite());
  }, 60_000);
});
