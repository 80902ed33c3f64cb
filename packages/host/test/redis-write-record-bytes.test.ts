import type { ToolOutcome } from '@toolhost/core';
import { DEFAULT_USER_RECORD_BYTES, RedisRecords } from '@toolhost/redis-store';
import { type ExpiringRecords, MemoryRecords } from '@toolhost/write-safety';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { writeHost } from './write-support.js';

// The in-memory store keeps each user to a share of its characters; in Redis each user's
// previews and stored outcomes were bounded only by count (100 previews, 1,000 keys) of up to
// the body limit (4 MiB) each: gigabytes of Redis a user. They are bounded in bytes now, with
// what the memory store does past its bound: a new preview or claim is refused (store_unavailable,
// "Nothing was sent."), an outcome of a request already sent is kept.

const BOUND = 100_000;
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

/** Bytes of keys and values of the write records Redis holds. */
async function heldBytes(): Promise<number> {
  let sum = 0;
  for (const key of await a.keys('toolhost:writes:*'))
    sum += Buffer.byteLength(key.slice('toolhost:writes:'.length)) + (await a.strlen(key));
  return sum;
}

/** What `put` did: stored, or the refusal's code, retryability and message. */
async function tryPut(records: ExpiringRecords, key: string, value: string, afterSend = false) {
  try {
    await records.put(key, value, 60_000, { userId: 'alice', afterSend });
    return 'kept';
  } catch (e) {
    const { code, retryable, message } = (
      e as { info: { code: string; retryable: boolean; message: string } }
    ).info;
    return { code, retryable, nothingSent: message.endsWith('Nothing was sent.') };
  }
}

describe("a user's write records in Redis", () => {
  it('are bounded in bytes across the replicas, past the bound as in memory', async () => {
    const memory = new MemoryRecords({ maxChars: BOUND * 4 });
    const one = new RedisRecords(a).perUserBytes(BOUND);
    const two = new RedisRecords(b).perUserBytes(BOUND);
    const value = 'x'.repeat(9_000);
    const inMemory = [];
    const inRedis = [];
    for (let i = 0; i < 20; i += 1) {
      inMemory.push(await tryPut(memory, `preview:${i}`, value));
      inRedis.push(await tryPut(i % 2 ? one : two, `preview:${i}`, value));
    }
    // The same records kept, the same refusal for the rest.
    expect(inRedis).toEqual(inMemory);
    expect(inRedis.filter((r) => r === 'kept')).toHaveLength(11);
    expect(inRedis.at(-1)).toEqual({ code: 'store_unavailable', retryable: true, nothingSent: true });
    expect(await heldBytes()).toBeLessThanOrEqual(BOUND);
    await expect(two.put('preview:x', value, 60_000, { userId: 'alice' })).rejects.toThrow(
      /tools\.writeRecordBytesPerUser/,
    );

    // A claim past the bound is refused, and not left behind to block a retry.
    await expect(
      memory.add('idem-claim:k', 'm'.repeat(1_000), 60_000, { userId: 'alice' }),
    ).rejects.toThrow();
    await expect(one.add('idem-claim:k', 'm'.repeat(1_000), 60_000, { userId: 'alice' })).rejects.toThrow(
      /Nothing was sent/,
    );
    expect(await one.get('idem-claim:k')).toBeUndefined();

    // An outcome of a request sent is kept whatever the bound, in both.
    expect(await tryPut(memory, 'idem:k', value, true)).toBe('kept');
    expect(await tryPut(one, 'idem:k', value, true)).toBe('kept');
    expect(await two.get('idem:k')).toBe(value);

    // Another user is not held back by her records.
    await memory.put('preview:bob', value, 60_000, { userId: 'bob' });
    await one.put('preview:bob', value, 60_000, { userId: 'bob' });
    expect(await two.get('preview:bob')).toBe(value);
  });

  it('count each record once, free the bytes of expired ones, and keep a user in one slot', async () => {
    const records = new RedisRecords(a).perUserBytes(BOUND);
    const value = 'y'.repeat(30_000);
    // Written again in place, a record is counted once.
    for (let i = 0; i < 5; i += 1) await records.put('preview:same', value, 60_000, { userId: 'alice' });
    await records.put('preview:short', value, 200, { userId: 'alice' });
    await records.put('preview:other', value, 60_000, { userId: 'alice' });
    await expect(records.put('preview:more', value, 60_000, { userId: 'alice' })).rejects.toThrow();
    // Once one expires, its bytes are free again.
    await new Promise((r) => setTimeout(r, 300));
    await records.put('preview:more', value, 60_000, { userId: 'alice' });
    expect(await heldBytes()).toBeLessThanOrEqual(BOUND);
    // The ledger is in the user's slot (hash tag), and expires with her last record.
    const ledger = await a.keys('toolhost:record-bytes:*');
    expect(ledger.length).toBeGreaterThan(0);
    for (const key of ledger) {
      expect(key).toContain('{alice}');
      expect(await a.pttl(key)).toBeGreaterThan(0);
    }
  });

  it('leaves ordinary use at the default bound as it was', async () => {
    const records = new RedisRecords(a);
    const value = 'z'.repeat(4_000);
    for (let i = 0; i < 1_000; i += 1) await records.put(`preview:${i}`, value, 60_000, { userId: 'alice' });
    expect(await records.add('idem-claim:k', 'marker', 60_000, { userId: 'alice' })).toBe(true);
    expect(await records.add('idem-claim:k', 'other-marker', 60_000, { userId: 'alice' })).toBe(false);
    // The same claim sent again (its answer lost) finds it holds it.
    expect(await records.add('idem-claim:k', 'marker', 60_000, { userId: 'alice' })).toBe(true);
    expect(await records.get('preview:999')).toBe(value);
    expect(DEFAULT_USER_RECORD_BYTES).toBe(16 * 1024 * 1024);
  });
});

describe('tools.writeRecordBytesPerUser on replicas', () => {
  let upstream: RecordingUpstream;
  const replicas: Host[] = [];
  beforeAll(async () => {
    upstream = await startRecordingUpstream();
  });
  afterAll(async () => {
    await Promise.all(replicas.map((h) => h.close()));
    await upstream.close();
  });

  it("refuses a user's previews past it on every replica, naming it; other users go on", {
    timeout: 30_000,
  }, async () => {
    const env = { TOOLHOST_REDIS_URL: redis.url, TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-bytes' };
    const config = { tools: { writeRecordBytesPerUser: 1_000_000 } };
    for (let i = 0; i < 2; i += 1) replicas.push(await writeHost(upstream.url, config, env));
    const [one, two] = replicas as [Host, Host];
    const update = { id: 'thing-1', title: 't'.repeat(200_000) };
    const preview = (host: Host, userId: string) =>
      host.previewToolCall('WriteApi.UpdateThing', update, { userId });
    const made: ToolOutcome[] = [];
    for (let i = 0; i < 10; i += 1) made.push((await preview(i % 2 ? one : two, 'alice')) as ToolOutcome);
    expect(made.filter((o) => o.ok).length).toBeGreaterThan(0);
    const refused = made.find((o) => !o.ok);
    expect(refused && !refused.ok && refused.error.code).toBe('store_unavailable');
    expect(refused && !refused.ok && refused.error.message).toContain('tools.writeRecordBytesPerUser');
    expect(await heldBytes()).toBeLessThanOrEqual(1_000_000);
    expect((await preview(two, 'bob')).ok).toBe(true);
    expect(upstream.requests).toHaveLength(0);
  });

  it('take back a preview whose write failed after landing, and keep an outcome whose write did', async () => {
    // One replica asked of a Redis with none: the SET lands, then WAIT comes up short.
    const records = new RedisRecords(a, undefined, undefined, { replicaAcks: 1, timeoutMs: 50 }).perUserBytes(
      BOUND,
    );
    const preview = 'p'.repeat(40_000);
    for (let i = 0; i < 5; i += 1)
      expect(await tryPut(records, `preview-${i}`, preview)).toMatchObject({ code: expect.any(String) });
    expect(await heldBytes()).toBe(0);
    const fits = new RedisRecords(a).perUserBytes(BOUND);
    expect(await tryPut(fits, 'preview-after', preview)).toBe('kept');

    const outcome = 'o'.repeat(1_000);
    expect(await tryPut(records, 'outcome', outcome, true)).toMatchObject({ code: expect.any(String) });
    expect(await a.get('toolhost:writes:outcome')).toBe(outcome);
  });
});
