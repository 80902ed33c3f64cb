import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TokenCipher } from '@toolhost/credentials';
import { RedisTokenStore } from '@toolhost/redis-store';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { acknowledgedWritesSurviveFailover, FAILOVER_TOKEN_KEY, failoverHost } from './failover-scenario.js';
import { type FakeOAuthServer, startFakeOAuthServer, storeAuthorized } from './fake-oauth-server.js';
import {
  closeClient,
  clusterClient,
  type RedisCluster,
  type RedisServer,
  startRedisCluster,
} from './redis-server.js';
import { tokenStoreOf } from './support.js';

// The Cluster counterpart of redis-failover.test.ts: three masters with a replica each. The
// replication window (normally milliseconds) is widened by cutting every master's replication
// link and keeping its replica from linking again (the master's default user may not PSYNC):
// what the masters acknowledge meanwhile is on them alone. Every master then dies (SIGKILL)
// and its replica takes its slots over (CLUSTER FAILOVER TAKEOVER, as an operator does, or the
// cluster after cluster-node-timeout); the old masters come back as the new ones' replicas.
// Commands go through execFile, never execFileSync: the host under test shares this event loop.
const run = promisify(execFile);
const cli = async (port: number, ...args: string[]) =>
  (await run('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' })).stdout;

let cluster: RedisCluster;
let admin: Cluster;
let upstream: RecordingUpstream;
let oauth: FakeOAuthServer;
let host: Host;

/** Waits for `ready` (polled every 200 ms), failing with `what` after `ms`. */
async function until(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Shard {
  master: RedisServer;
  replica: RedisServer;
  /** The master's slot ranges, [first, last] each. */
  slots: [number, number][];
}

/**
 * Each master with its replica and its slots, as the cluster paired them. Just after a failover a
 * node's view can still show a master without its replica (the news travels by gossip): read
 * again until every master serving slots has one.
 */
async function shards(): Promise<Shard[]> {
  let paired: Shard[] | undefined;
  await until('every master paired with its replica in the cluster view', async () => {
    paired = await pairedShards();
    return paired !== undefined;
  });
  return paired!;
}

async function pairedShards(): Promise<Shard[] | undefined> {
  const byPort = new Map(cluster.nodes.map((n) => [n.port, n]));
  const lines = (await cli(cluster.nodes[0]!.port, 'cluster', 'nodes')).trim().split('\n');
  const nodes = lines.map((l) => {
    const [id, address, flags, masterId, , , , , ...slots] = l.split(' ');
    return {
      id,
      port: Number(address!.split('@')[0]!.split(':')[1]),
      flags: flags!.split(','),
      masterId,
      slots: slots.map((range) => range.split('-').map(Number) as number[]),
    };
  });
  const healthy = nodes.filter((n) => !n.flags.some((f) => f === 'fail' || f === 'fail?'));
  const masters = healthy.filter((n) => n.flags.includes('master') && n.slots.length > 0);
  const found: Shard[] = [];
  for (const m of masters) {
    const replica = healthy.find((n) => n.masterId === m.id);
    if (!replica) return undefined;
    found.push({
      master: byPort.get(m.port)!,
      replica: byPort.get(replica.port)!,
      slots: m.slots.map(([first, last]) => [first!, last ?? first!] as [number, number]),
    });
  }
  return found;
}

/** The shard whose master serves `key`. */
async function shardOf(key: string): Promise<Shard> {
  const slot = Number((await cli(cluster.nodes[0]!.port, 'cluster', 'keyslot', key)).trim());
  const shard = (await shards()).find((s) => s.slots.some(([first, last]) => first <= slot && slot <= last));
  if (!shard) throw new Error(`no master serves slot ${slot}`);
  return shard;
}

const replication = (node: RedisServer) => cli(node.port, 'info', 'replication');

beforeAll(async () => {
  cluster = await startRedisCluster(3, { replicas: 1 });
  admin = clusterClient(
    cluster.seeds.map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })),
  );
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'made' } }));
  oauth = await startFakeOAuthServer();
  // A Cluster with replicas: store.replicaAcks 1, as docs/replicas.md tells operators. The ack
  // timeout is the default's double: on a machine with both cores busy a healthy replica's ack
  // has taken over 300 ms, and only the writes inside the cut window wait it out.
  host = await failoverHost(
    { cluster: cluster.seeds, replicaAcks: 1, replicaAckTimeoutMs: 2000 },
    upstream,
    oauth,
    // Credentials and TLS only: the nodes come from store.cluster.
    { env: { TOOLHOST_REDIS_URL: 'redis://127.0.0.1:1' } },
  );
}, 60_000);

afterAll(async () => {
  await host?.close();
  if (admin) await closeClient(admin);
  await cluster?.close();
  await oauth?.close();
  await upstream?.close();
});

describe('a Redis Cluster failover in the replication window', () => {
  it('loses neither a rotated token nor an idempotency record the old masters acknowledged', async () => {
    const pairs = await shards();
    expect(pairs).toHaveLength(3);
    const inCluster = await RedisTokenStore.open(admin, TokenCipher, FAILOVER_TOKEN_KEY);
    await acknowledgedWritesSurviveFailover({
      host,
      oauth,
      upstream,
      storedToken: () => inCluster.get('echo-auth', 'alice'),
      // No replica receives anything more from its master.
      async cutReplication() {
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
      },
      // Every master dies with what it alone holds; its replica takes its slots over; the old
      // masters come back as the new ones' replicas (empty: they keep nothing on disk).
      async failOver() {
        for (const { master } of pairs) await master.kill();
        for (const { replica } of pairs) await cli(replica.port, 'cluster', 'failover', 'takeover');
        for (const { replica } of pairs) {
          await until('replicas promoted', async () => {
            const [info, state] = await Promise.all([
              replication(replica),
              cli(replica.port, 'cluster', 'info'),
            ]);
            return info.includes('role:master') && state.includes('cluster_state:ok');
          });
        }
        for (const { master } of pairs) await master.start();
        for (const { master } of pairs) {
          await until('old masters back as replicas', async () =>
            (await replication(master)).includes('master_link_status:up'),
          );
        }
      },
    });
  }, 120_000);

  // ioredis follows a pipeline's MOVED only when every reply is that error, and a replica answers
  // the write's WAIT with an error of its own: the host's slot map, naming the old master, must be
  // read again, or every durable write to that slot is refused until another command does it.
  it('writes durably to where a slot moved, the old master at its address a replica now', async () => {
    const tokens = tokenStoreOf(host);
    // Written once through the host's map, which then names this shard's master for the slot.
    await storeAuthorized(oauth, tokens, 'bob', Date.now() + 3_600_000);
    const { master, replica } = await shardOf('toolhost:token:echo-auth:bob');
    // A graceful failover first, as an operator asks for one: the replica takes the slots over,
    // the master stays, as its replica. It gives up unannounced when the two do not agree on the
    // offset in time (a loaded machine), and FORCE is no way out: it still needs the masters'
    // votes, and a replica whose election went unanswered may not stand again for four node
    // timeouts (a minute). TAKEOVER needs neither agreement nor votes (the master still learns it
    // is a replica now from the higher epoch): what the test is about is the slot moving.
    await cli(replica.port, 'cluster', 'failover');
    const promoted = async () => (await replication(replica)).includes('role:master');
    try {
      await until('roles swapped', promoted, 10_000);
    } catch {
      await cli(replica.port, 'cluster', 'failover', 'takeover');
      await until('roles swapped by takeover', promoted);
    }
    await until('the old master linked to the new one', async () =>
      (await replication(master)).includes('master_link_status:up'),
    );

    const rotated = await storeAuthorized(oauth, tokens, 'bob', Date.now() + 3_600_000);
    const inCluster = await RedisTokenStore.open(admin, TokenCipher, FAILOVER_TOKEN_KEY);
    expect((await inCluster.get('echo-auth', 'bob'))?.refreshToken).toBe(rotated.refreshToken);
  }, 90_000);
});
