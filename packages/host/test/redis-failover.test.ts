import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { acknowledgedWritesSurviveFailover, failoverHost } from './failover-scenario.js';
import { type FakeOAuthServer, startFakeOAuthServer } from './fake-oauth-server.js';
import { type MasterProxy, masterProxy } from './redis-master-proxy.js';
import {
  caughtUp,
  type RedisServer,
  replicating,
  type Sentinels,
  startRedisServer,
  startSentinels,
} from './redis-server.js';
import { capturedLogger, tokenStoreOf } from './support.js';

// A Sentinel deployment as the issue ran it: a master with AOF, two replicas, three Sentinels.
// The replication window (normally milliseconds) is widened by holding back the replication
// stream on its way to the replicas: everyone (replicas, Sentinels, and through them the host)
// reaches the master through a proxy that can hold back what it sends on a replica's connection:
// what the master acknowledges meanwhile is on the master alone, and the master then dies
// (SIGKILL). The Sentinels must watch the address the replicas replicate from: a replica that
// names another master is rewired straight to the real one within seconds (+fix-slave-config),
// which would close the window mid-test. Freezing the replicas would not do: the kernel keeps
// receiving for a stopped process.
let master: RedisServer;
let proxy: MasterProxy;
let replicas: RedisServer[];
let sentinels: Sentinels;
let upstream: RecordingUpstream;
let oauth: FakeOAuthServer;
let host: Host;
const log = capturedLogger('debug');

beforeAll(async () => {
  master = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
  proxy = await masterProxy(master.port);
  replicas = await Promise.all(
    [0, 1].map(() => startRedisServer(['--replicaof', '127.0.0.1', String(proxy.port)])),
  );
  await Promise.all(replicas.map((r) => replicating(r)));
  sentinels = await startSentinels(proxy.port, 3);
  upstream = await startRecordingUpstream(() => ({ status: 201, body: { id: 'made' } }));
  oauth = await startFakeOAuthServer();
  // store.replicaAcks is 1 by default with Sentinels. A generous ack timeout: on a loaded machine
  // a healthy replica's ack has taken over 300 ms; only writes inside the cut window wait it out.
  host = await failoverHost(
    { redisUrl: 'redis://unused.invalid:6379', sentinels: sentinels.nodes, replicaAckTimeoutMs: 2000 },
    upstream,
    oauth,
    {
      logger: log.logger,
    },
  );
}, 60_000);

afterAll(async () => {
  await host?.close();
  await sentinels?.close();
  proxy?.close();
  for (const r of replicas ?? []) await r.close();
  await master?.close();
  await oauth?.close();
  await upstream?.close();
});

describe('a Sentinel failover in the replication window', () => {
  it('loses neither a rotated token nor an idempotency record the old master acknowledged', async () => {
    await acknowledgedWritesSurviveFailover({
      host,
      oauth,
      upstream,
      storedToken: () => tokenStoreOf(host).get('echo-auth', 'alice'),
      // Both replicas hold what came before the window: which one the Sentinels promote is theirs to choose.
      settled: async () => {
        await caughtUp(master, replicas);
      },
      cutReplication: async () => proxy.hold(),
      failOver: async () => {
        await master.kill();
        // What the proxy held back is lost with the master.
        proxy.close();
        const deadline = Date.now() + 30_000;
        while ((await sentinels.masterPort()) === proxy.port) {
          if (Date.now() > deadline) throw new Error('no failover');
          await new Promise((r) => setTimeout(r, 200));
        }
        // Whole again once the other replica copies the promoted one: until then no write can
        // have its replica, and a rotated token's refresh lock stays held (a loaded machine has
        // taken over 10 s to re-point it).
        const promoted = await sentinels.masterPort();
        await replicating(replicas.find((r) => r.port !== promoted)!, promoted);
      },
    });
    // The three Sentinels answered throughout: the log never calls them unreachable.
    expect(log.lines()).not.toContain('All sentinels are unreachable');
  }, 120_000);
});
