import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { type RedisCluster, type RedisServer, startRedisCluster } from './redis-server.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// A Cluster master that hangs (paused, cut off) rather than dies keeps the host's connection to
// it open: once the cluster promotes its replica, the host must send that master's slots there,
// not to the hung node until it wakes. Commands go through execFile: the host shares this loop.
const run = promisify(execFile);
const cli = async (port: number, ...args: string[]) =>
  (await run('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' })).stdout;

let cluster: RedisCluster;
let host: Host;

beforeAll(async () => {
  cluster = await startRedisCluster(3, { replicas: 1 });
  // Quick to call a node failed: the cluster promotes a hung master's replica within seconds.
  // Serving the other slots meanwhile (no CLUSTERDOWN, on which the client would ask for the
  // slots itself): the host must notice the hung master on its own.
  await Promise.all(
    cluster.nodes.map(async (n) => {
      await cli(n.port, 'config', 'set', 'cluster-node-timeout', '1000');
      await cli(n.port, 'config', 'set', 'cluster-require-full-coverage', 'no');
    }),
  );
  host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
      // Writes the promoted master takes alone (its replica is the node that hangs).
      store: { cluster: cluster.seeds, commandTimeoutMs: 1000, replicaAcks: 0 },
    },
    {
      configDir: fixtureApp,
      env: {
        TOOLHOST_TOKEN_KEY: 'token-key-for-a-hung-cluster-master',
        TOOLHOST_REDIS_URL: 'redis://127.0.0.1:1',
      },
    },
  );
}, 60_000);

afterAll(async () => {
  for (const n of cluster?.nodes ?? []) n.resume();
  await host?.close();
  await cluster?.close();
});

/** The port of the master serving `key`, as `asked` (a node's port) sees the cluster. */
async function masterOf(key: string, asked: number): Promise<number | undefined> {
  const slot = Number((await cli(asked, 'cluster', 'keyslot', key)).trim());
  for (const line of (await cli(asked, 'cluster', 'nodes')).trim().split('\n')) {
    const [, address, flags, , , , , , ...ranges] = line.split(' ');
    if (!flags!.split(',').includes('master') || flags!.includes('fail')) continue;
    for (const range of ranges) {
      const [first, last = first] = range.split('-').map(Number);
      if (first! <= slot && slot <= last!) return Number(address!.split('@')[0]!.split(':')[1]);
    }
  }
  return undefined;
}

describe('a Cluster failover away from a master that hangs', () => {
  it('sends the hung master’s slots to its promoted replica while it still hangs', async () => {
    const store = tokenStoreOf(host);
    const key = 'toolhost:token:echo-auth:alice';
    await store.set('echo-auth', 'alice', { accessToken: 'before', scopes: [] });
    const port = await masterOf(key, cluster.nodes[0]!.port);
    const hung = cluster.nodes.find((n) => n.port === port) as RedisServer;
    const other = cluster.nodes.find((n) => n !== hung)!;
    hung.pause();
    try {
      await expect
        .poll(async () => (await masterOf(key, other.port)) !== hung.port, { timeout: 30_000, interval: 250 })
        .toBe(true);
      const written = () =>
        store.set('echo-auth', 'alice', { accessToken: 'during', scopes: [] }).then(
          () => true,
          () => false,
        );
      await expect.poll(written, { timeout: 15_000, interval: 250 }).toBe(true);
      expect((await store.get('echo-auth', 'alice'))?.accessToken).toBe('during');
    } finally {
      hung.resume();
    }
  }, 90_000);
});
