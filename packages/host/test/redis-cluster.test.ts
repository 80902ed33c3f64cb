import { describe, expect, it } from 'vitest';
import { doctorReport } from '../src/cli/doctor.js';
import {
  admin,
  authorize,
  cluster,
  echoConfig,
  errorCode,
  getItem,
  keysPerMaster,
  replica,
  replicaEnv,
  sharedOf,
  suite,
  upstream,
  useClusterSuite,
} from './redis-cluster-setup.js';
import { startRedisServer } from './redis-server.js';
import {
  oneRefreshAcrossReplicas,
  pacingAcrossReplicas,
  tokenChangeReachesEveryReplica,
  tokensOnEveryReplica,
} from './replica-scenarios.js';
import { tokenStoreOf } from './support.js';

useClusterSuite();

// The shared-store scenarios through a real three-master Redis Cluster: every command, MULTI
// and script must keep its keys in one hash slot (else Redis answers CROSSSLOT), and listing
// must walk every master. Start-up, tokens, faults and pacing here; what replicas do together
// (writes, authorizations, sessions, results, bounds) in redis-cluster-replicas.test.ts.

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
