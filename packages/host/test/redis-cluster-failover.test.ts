import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { StoredToken, TokenStore, ToolOutcome } from '@toolhost/core';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { containerOf, createHost, type Host } from '../src/host.js';
import { HostServices, resolveService } from '../src/services.js';
import { RedisTokenStore } from '../src/store/redis-token-store.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
} from './fake-oauth-server.js';
import { type RedisCluster, type RedisServer, startRedisCluster } from './redis-server.js';
import { fixtureApp } from './support.js';

// The Cluster counterpart of redis-failover.test.ts: three masters with a replica each. The
// replication window (normally milliseconds) is widened by cutting every master's replication
// link and keeping its replica from linking again (the master's default user may not PSYNC):
// what the masters acknowledge meanwhile is on them alone. Every master then dies (SIGKILL)
// and its replica takes its slots over (CLUSTER FAILOVER TAKEOVER, as an operator does, or the
// cluster after cluster-node-timeout); the old masters come back as the new ones' replicas.
// Commands go through execFile, never execFileSync: the host under test shares this event loop.
const TOKEN_KEY = 'token-encryption-key-for-cluster-failover';
const run = promisify(execFile);
const cli = async (port: number, ...args: string[]) =>
  (await run('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' })).stdout;

let cluster: RedisCluster;
let admin: Cluster;
let upstream: RecordingUpstream;
let oauth: FakeOAuthServer;
let host: Host;

const tokenStore = (h: Host) => resolveService(containerOf(h), HostServices.tokenStore) as TokenStore;
const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);
const CREATE = { mode: 'execute', request_body: JSON.stringify({ name: 'n1' }) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `ready` (polled every 200 ms), failing with `what` after `ms`. */
async function until(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** Each master with its replica, as the cluster paired them. */
async function shards(): Promise<{ master: RedisServer; replica: RedisServer }[]> {
  const byPort = new Map(cluster.nodes.map((n) => [n.port, n]));
  const lines = (await cli(cluster.nodes[0]!.port, 'cluster', 'nodes')).trim().split('\n');
  const nodes = lines.map((l) => {
    const [id, address, flags, masterId] = l.split(' ');
    return { id, port: Number(address!.split('@')[0]!.split(':')[1]), flags: flags!.split(','), masterId };
  });
  return nodes
    .filter((n) => n.flags.includes('master'))
    .map((m) => ({
      master: byPort.get(m.port)!,
      replica: byPort.get(nodes.find((n) => n.masterId === m.id)!.port)!,
    }));
}

const replication = (node: RedisServer) => cli(node.port, 'info', 'replication');

beforeAll(async () => {
  cluster = await startRedisCluster(3, { replicas: 1 });
  admin = new Cluster(cluster.seeds.map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })));
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'made' } }));
  oauth = await startFakeOAuthServer();
  host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      auth: {
        providers: echoAuthProviders(oauth, { redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth' }),
      },
      // A Cluster with replicas: store.replicaAcks 1, as docs/replicas.md tells operators.
      store: { cluster: cluster.seeds, replicaAcks: 1, replicaAckTimeoutMs: 300 },
    },
    {
      configDir: fixtureApp,
      env: {
        TOOLHOST_REDIS_URL: 'redis://127.0.0.1:1',
        TOOLHOST_TOKEN_KEY: TOKEN_KEY,
        ECHO_KEY: 'echo-static-key',
        ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
      },
    },
  );
}, 60_000);

afterAll(async () => {
  await host?.close();
  admin?.disconnect();
  await cluster?.close();
  await oauth?.close();
  await upstream?.close();
});

describe('a Redis Cluster failover in the replication window', () => {
  it('loses neither a rotated token nor an idempotency record the old masters acknowledged', async () => {
    const issued = oauth.mint('items.read');
    const stale: StoredToken = {
      accessToken: issued.access_token,
      refreshToken: issued.refresh_token,
      expiresAt: Date.now() - 1000,
      scopes: ['items.read'],
    };
    await tokenStore(host).set('echo-auth', 'alice', stale);
    oauth.expiresIn = 2;
    const pairs = await shards();
    expect(pairs).toHaveLength(3);

    // The window opens: no replica receives anything more from its master.
    for (const { master } of pairs) {
      await cli(master.port, 'acl', 'setuser', 'default', '-psync', '-sync');
      await cli(master.port, 'client', 'kill', 'type', 'replica');
    }
    for (const { master, replica } of pairs) {
      await until('replication links down', async () => {
        const [m, r] = await Promise.all([replication(master), replication(replica)]);
        return m.includes('connected_slaves:0') && r.includes('master_link_status:down');
      });
    }

    // The refresh rotates the token at the vendor; the call goes on with the new one.
    const refreshed = await host.callTool('EchoApi.GetItem', { item_id: 'i1' }, { userId: 'alice' });
    expect(code(refreshed), JSON.stringify([refreshed, oauth.grants])).toBeUndefined();
    expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: stale.refreshToken }]);
    // A keyed write: its attempt must be on a replica before its request may leave.
    const keyed = await host.callTool('EchoApi.CreateItem', CREATE, {
      userId: 'alice',
      idempotencyKey: 'k1',
    });

    // Every master dies with what it alone holds; its replica takes its slots over.
    for (const { master } of pairs) await master.kill();
    for (const { replica } of pairs) await cli(replica.port, 'cluster', 'failover', 'takeover');
    for (const { replica } of pairs) {
      await until('replicas promoted', async () => {
        const [info, state] = await Promise.all([replication(replica), cli(replica.port, 'cluster', 'info')]);
        return info.includes('role:master') && state.includes('cluster_state:ok');
      });
    }
    // The old masters come back as the new ones' replicas (empty: they keep nothing on disk).
    for (const { master } of pairs) await master.start();
    for (const { master } of pairs) {
      await until('old masters back as replicas', async () =>
        (await replication(master)).includes('master_link_status:up'),
      );
    }

    // The rotated token is in the promoted masters (read there, not from the host's memory):
    // the next refresh sends the new refresh token.
    const inCluster = await RedisTokenStore.open(admin, TOKEN_KEY);
    const deadline = Date.now() + 30_000;
    let stored: StoredToken | undefined;
    while (Date.now() < deadline) {
      stored = await inCluster.get('echo-auth', 'alice').catch(() => undefined);
      if (stored && stored.refreshToken !== stale.refreshToken) break;
      await sleep(200);
    }
    expect(stored?.refreshToken).not.toBe(stale.refreshToken);
    // The rotated token expires (oauth.expiresIn): this call refreshes again, with it.
    await until('the rotated token to expire', async () => Date.now() > (stored?.expiresAt ?? 0));
    const after = await host.callTool('EchoApi.GetItem', { item_id: 'i2' }, { userId: 'alice' });
    expect(code(after), JSON.stringify([after, oauth.grants])).toBeUndefined();
    expect(oauth.grants).toHaveLength(2);
    expect(oauth.grants[1]?.refresh_token).toBe(stored?.refreshToken);

    // The keyed write is sent once in all: refused before sending while no replica could hold
    // its attempt, or answered from its stored outcome.
    let again = await host.callTool('EchoApi.CreateItem', CREATE, { userId: 'alice', idempotencyKey: 'k1' });
    while (code(again) === 'store_unavailable' && Date.now() < deadline) {
      await sleep(300);
      again = await host.callTool('EchoApi.CreateItem', CREATE, { userId: 'alice', idempotencyKey: 'k1' });
    }
    expect(code(again), JSON.stringify(again)).toBeUndefined();
    expect(code(keyed) === undefined || code(keyed) === 'store_unavailable').toBe(true);
    expect(upstream.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  }, 120_000);
});
