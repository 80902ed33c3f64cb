import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import {
  closeClient,
  type RedisServer,
  redisCli,
  redisClient,
  type Sentinels,
  startRedisServer,
  startReplica,
  startSentinels,
} from './redis-server.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// A master that hangs (paused, cut off) rather than dies keeps the host's connection open and
// "ready": the host must follow the Sentinels' failover all the same, not wait on it.
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
      // Writes the promoted master takes alone (it has no replica while the old one hangs). A
      // command's timeout longer than the test: the connection to the hung master is not dropped
      // as frozen meanwhile, so only the Sentinels' word moves the host.
      store: {
        redisUrl: 'redis://unused.invalid:6379',
        sentinels: sentinel.nodes,
        commandTimeoutMs: 60_000,
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

/** The clients subscribed on the Sentinel (the failover detector's): `sub=` above 0. */
const subscribedOnSentinel = () =>
  redisCli(Number(sentinel.nodes[0].split(':')[1]), 'client', 'list')
    .trim()
    .split('\n')
    .filter((line) => / sub=[1-9]/.test(line)).length;

describe('a host on Redis Sentinel, closed', () => {
  it('leaves no connection open on the Sentinels (a CLI would not exit)', async () => {
    const before = subscribedOnSentinel();
    const other = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
        store: { redisUrl: 'redis://unused.invalid:6379', sentinels: sentinel.nodes },
      },
      { configDir: fixtureApp, env: { TOOLHOST_TOKEN_KEY: 'token-key-for-a-hung-master' } },
    );
    await other.metrics();
    // Its store's connection and its subscriber's each listen for failovers there.
    await expect.poll(subscribedOnSentinel, { timeout: 5000 }).toBeGreaterThan(before);
    await other.close();
    await expect.poll(subscribedOnSentinel, { timeout: 5000 }).toBe(before);
  }, 30_000);
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
