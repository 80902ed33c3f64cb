import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisChannels } from './redis-channels.js';
import { connectRedis } from './redis-client.js';
import { RedisSessions } from './redis-sessions.js';
import { type LocalRedis, startLocalRedis } from './test-support/local-redis.js';
import { TouchTimes } from './touch-times.js';

// What a replica remembers of the sessions whose expiry it extended: bounded, whatever clients
// do, and never the sessions Redis refused to store.

const remembered = (sessions: RedisSessions) => (sessions as unknown as { touched: TouchTimes }).touched.size;
const record = { userId: 'alice', owner: 'alice', initialize: {} };

let server: LocalRedis;
beforeAll(async () => {
  server = await startLocalRedis();
});
afterAll(async () => {
  await server.stop();
});

describe('RedisSessions: sessions it extended', () => {
  it('holds at most 10,000 however many are opened within their idle lifetime', async () => {
    const redis = await connectRedis(server.url);
    const channels = await RedisChannels.open(redis);
    try {
      const sessions = new RedisSessions(redis, channels, 30 * 60_000);
      for (let batch = 0; batch < 25; batch++)
        await Promise.all(Array.from({ length: 1000 }, () => sessions.save(randomUUID(), record)));
      expect(await redis.dbsize()).toBeGreaterThanOrEqual(25_000);
      expect(remembered(sessions)).toBe(10_000);
    } finally {
      await channels.close();
      redis.disconnect();
    }
  }, 60_000);

  it('remembers none of the sessions Redis refused to store', async () => {
    const own = await startLocalRedis();
    const redis = await connectRedis(own.url);
    redis.on('error', () => {});
    const channels = await RedisChannels.open(redis);
    try {
      const sessions = new RedisSessions(redis, channels, 30 * 60_000);
      await own.stop();
      let refused = 0;
      for (let i = 0; i < 2000; i++)
        await sessions.save(randomUUID(), record).catch((e: { code?: string }) => {
          if (e.code === 'store_unavailable') refused += 1;
        });
      expect(refused).toBe(2000);
      expect(remembered(sessions)).toBe(0);
    } finally {
      await channels.close();
      redis.disconnect();
    }
  }, 30_000);
});

describe('RedisSessions: opens whose record may have landed though its write failed', () => {
  it('deletes them once Redis answers, one loop for all, publishing no end nobody was told of', async () => {
    const own = await startLocalRedis();
    const redis = await connectRedis(own.url, undefined, { commandTimeoutMs: 300 });
    redis.on('error', () => {});
    const channels = await RedisChannels.open(redis);
    const calls = async (command: string) =>
      Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await redis.info('commandstats'))?.[1] ?? 0);
    try {
      const sessions = new RedisSessions(redis, channels, 30 * 60_000);
      await redis.config('RESETSTAT');
      own.pause();
      // Sent to a Redis that froze: each SET times out, and lands when it thaws.
      await Promise.all(
        Array.from({ length: 200 }, () => sessions.save(randomUUID(), record).catch(() => undefined)),
      );
      await new Promise((r) => setTimeout(r, 2000));
      own.resume();
      await expect.poll(() => redis.dbsize(), { timeout: 10_000 }).toBe(0);
      await new Promise((r) => setTimeout(r, 1000));
      // A loop per failed open tried its DEL every half second while Redis was away (each with a
      // listener and a timer: thousands of refused opens kept the event loop busy), then ended
      // the session everywhere: three DELs and a PUBLISH each.
      expect(await calls('del')).toBeLessThan(260);
      expect(await calls('publish')).toBe(0);
    } finally {
      own.resume();
      await channels.close();
      redis.disconnect();
      await own.stop();
    }
  }, 30_000);
});

describe('TouchTimes', () => {
  it('forgets from the oldest note, stopping at the first still fresh; a renewed note is the newest', () => {
    const times = new TouchTimes(1000, 3);
    times.note('a', 0);
    times.note('b', 100);
    times.note('a', 900); // renewed: now after b
    times.note('c', 1050); // b (950 ms old) and a are fresh
    expect([times.last('a'), times.last('b'), times.last('c')]).toEqual([900, 100, 1050]);
    times.note('d', 1200); // over the cap: the oldest (b) goes, though fresh
    expect(times.last('b')).toBe(0);
    expect(times.size).toBe(3);
    times.note('e', 2000); // a (1100 ms old) is stale; c (950 ms) is fresh and stops the sweep
    expect([times.last('a'), times.last('c'), times.last('d'), times.last('e')]).toEqual([
      0, 1050, 1200, 2000,
    ]);
  });
});
