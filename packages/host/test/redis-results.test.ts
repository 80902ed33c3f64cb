import { TokenCipher } from '@toolhost/credentials';
import { openSharedCipher, RedisResults } from '@toolhost/redis-store';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RESULT_URI_PREFIX } from '../src/mcp/result-store.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

const KEY = 'token-encryption-key-for-replicas';
let redis: RedisServer;
let a: Redis;
let b: Redis;

beforeAll(async () => {
  redis = await startRedisServer();
  a = redisClient(redis.url);
  b = redisClient(redis.url);
});
afterAll(async () => {
  await Promise.all([closeClient(a), closeClient(b)]);
  await redis.close();
});
beforeEach(async () => {
  await a.flushall();
});

let n = 0;
const result = (userId: string, bytes: number) => ({
  uri: `${RESULT_URI_PREFIX}00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  tool: 'EchoApi.GetItem',
  text: 'x'.repeat(bytes),
  bytes,
  expiresAt: Date.now() + 60_000,
  userId,
});

describe('large results in Redis', () => {
  it("bounds one user's results across replicas, dropping their oldest; another user's stay", async () => {
    const one = new RedisResults(a, await openSharedCipher(a, TokenCipher, KEY));
    const two = new RedisResults(b, await openSharedCipher(b, TokenCipher, KEY));
    const bobs = result('bob', 1000);
    await one.put(bobs, 2500);
    const alices = Array.from({ length: 5 }, () => result('alice', 1000));
    for (const [i, r] of alices.entries()) await (i % 2 ? one : two).put(r, 2500);
    // 2,500 bytes hold her two newest, whichever replica made them.
    expect((await two.list('alice')).map((r) => r.uri)).toEqual(alices.slice(3).map((r) => r.uri));
    expect(await one.get(alices[0]!.uri, 'alice', 0)).toBeUndefined();
    expect((await one.get(alices[4]!.uri, 'alice', 0))?.text).toHaveLength(1000);
    expect(await a.keys('toolhost:result:{alice}:*')).toHaveLength(2);
    expect((await two.get(bobs.uri, 'bob', 0))?.bytes).toBe(1000);
  });

  it('keeps a result larger than the bound on its own', async () => {
    const one = new RedisResults(a, await openSharedCipher(a, TokenCipher, KEY));
    await one.put(result('alice', 1000), 2500);
    const big = result('alice', 4000);
    await one.put(big, 2500);
    expect((await one.list('alice')).map((r) => r.uri)).toEqual([big.uri]);
  });
});
