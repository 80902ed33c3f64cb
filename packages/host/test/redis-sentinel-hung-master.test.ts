import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import {
  closeClient,
  type RedisServer,
  redisClient,
  type Sentinels,
  startRedisServer,
  startReplica,
  startSentinels,
} from './redis-server.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// A master that hangs (paused, cut off) rather than dies keeps the host's connection open and
// "ready": the host must follow the Sentinels' failover all the same, not wait on it (its
// connection, silent a command's timeout, is dropped and made again to the promoted replica).
let master: RedisServer;
let replica: RedisServer;
let sentinel: Sentinels;
let host: Host;

beforeAll(async () => {
  master = await startRedisServer();
  replica = await startReplica(master);
  sentinel = await startSentinels(master.port, 1);
  host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
      // Writes the promoted master takes alone (it has no replica while the old one hangs). Its
      // connection to the hung master, silent a command's timeout, is dropped as frozen, and
      // made again to the master the Sentinels name.
      store: {
        redisUrl: 'redis://unused.invalid:6379',
        sentinels: sentinel.nodes,
        commandTimeoutMs: 1000,
        replicaAcks: 0,
      },
    },
    { configDir: fixtureApp, env: { TOOLHOST_TOKEN_KEY: 'token-key-for-a-hung-master' } },
  );
}, 60_000);

afterAll(async () => {
  master?.resume();
  await host?.close();
  await sentinel?.close();
  await replica?.close();
  await master?.close();
});

describe('a Sentinel failover away from a master that hangs', () => {
  it('writes to the promoted replica while the old master still hangs, and keeps what it wrote once that wakes', async () => {
    const store = tokenStoreOf(host);
    await store.set('echo-auth', 'before', { accessToken: 'before', scopes: [] });
    master.pause();
    const paused = Date.now();
    try {
      await expect.poll(() => sentinel.masterPort(), { timeout: 20_000, interval: 200 }).toBe(replica.port);
      // Within seconds of the promotion, while the old master still hangs.
      const written = async () =>
        store.set('echo-auth', 'during', { accessToken: 'during', scopes: [] }).then(
          () => true,
          () => false,
        );
      await expect.poll(written, { timeout: 15_000, interval: 250 }).toBe(true);
      expect(Date.now() - paused).toBeLessThan(40_000);
    } finally {
      master.resume();
    }
    // Once the old master wakes (still master a few seconds, then demoted), what was written
    // during the hang is on the master the Sentinels name, and nothing went to the old one.
    await new Promise((r) => setTimeout(r, 3000));
    await store.set('echo-auth', 'after', { accessToken: 'after', scopes: [] });
    await expect.poll(() => sentinel.masterPort(), { timeout: 20_000 }).toBe(replica.port);
    const promoted = redisClient(replica.url);
    try {
      for (const user of ['during', 'after'])
        expect(await promoted.exists(`toolhost:token:echo-auth:${user}`), user).toBe(1);
    } finally {
      await closeClient(promoted);
    }
  }, 90_000);
});
