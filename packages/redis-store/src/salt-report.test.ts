import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis, type SharedRedis } from './redis-client.js';
import { RedisTokenStore } from './redis-token-store.js';
import { saltReport } from './salt-report.js';
import { AesCipher, type LocalRedis, startLocalRedis } from './test-support/local-redis.js';

const KEY = 'token-key-of-the-salt-report-test';
const SALT = 'toolhost:token-salt';
/** The report of a replica whose token store is `store`. */
const reportOn = (store: RedisTokenStore) => saltReport({ cipher: store.cipher, tokenStore: store });
const token = (name: string) => ({ accessToken: `${name}-access-token`, scopes: ['items.read'] });

let server: LocalRedis;
let redis: SharedRedis;
beforeAll(async () => {
  server = await startLocalRedis();
  redis = await connectRedis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});
beforeEach(() => redis.flushall());

describe('saltReport', () => {
  it('says the salt agrees and every token opens, under how many salts', async () => {
    const store = await RedisTokenStore.open(redis, AesCipher, KEY);
    await store.set('crm', 'alice', token('alice'));
    await store.set('crm', 'bob', token('bob'));
    expect(await reportOn(store)).toEqual({
      lines: [
        'Shared token salt: in Redis, the same as this host uses.',
        'Tokens in Redis: 2, all open with this TOOLHOST_TOKEN_KEY (sealed under 1 salt).',
      ],
      ok: true,
    });
  });

  it('says a salt Redis lost was written back, and fails', async () => {
    const store = await RedisTokenStore.open(redis, AesCipher, KEY);
    await redis.del(SALT);
    const report = await reportOn(store);
    expect(report.ok).toBe(false);
    expect(report.lines).toEqual([
      'Shared token salt: WAS MISSING from Redis (emptied, flushed or evicted); written back. Give Redis persistence and maxmemory-policy noeviction.',
      'Tokens in Redis: 0, all open with this TOOLHOST_TOKEN_KEY (sealed under 0 salts).',
    ]);
    expect(await redis.get(SALT)).toBe(store.cipher.salt);
  });

  it('says a salt another replica wrote was adopted, tokens sealed before still opening', async () => {
    const store = await RedisTokenStore.open(redis, AesCipher, KEY);
    await store.set('crm', 'alice', token('alice'));
    const other = Buffer.alloc(16, 7).toString('base64');
    await redis.set(SALT, other);
    const report = await reportOn(store);
    expect(report.lines[0]).toBe(
      'Shared token salt: CHANGED in Redis since this host started (Redis lost its data); adopted. Values sealed before still open.',
    );
    expect(report.ok).toBe(false);
    expect(store.cipher.salt).toBe(other);
    // Sealed after under the adopted salt: both salts' tokens open.
    await store.set('crm', 'bob', token('bob'));
    expect((await reportOn(store)).lines[1]).toBe(
      'Tokens in Redis: 2, all open with this TOOLHOST_TOKEN_KEY (sealed under 2 salts).',
    );
  });

  it('counts the tokens sealed with another key, and fails', async () => {
    const store = await RedisTokenStore.open(redis, AesCipher, KEY);
    await store.set('crm', 'alice', token('alice'));
    const otherKey = await RedisTokenStore.open(redis, AesCipher, 'another-key-of-16-chars-or-more');
    await otherKey.set('crm', 'bob', token('bob'));
    expect(await reportOn(store)).toEqual({
      lines: [
        'Shared token salt: in Redis, the same as this host uses.',
        'Tokens in Redis: 1 of 2 do NOT open with this TOOLHOST_TOKEN_KEY (sealed with another key, or altered).',
      ],
      ok: false,
    });
  });

  it('reports a salt it cannot check instead of throwing', async () => {
    const store = await RedisTokenStore.open(redis, AesCipher, KEY);
    await redis.set(SALT, 'not-a-salt');
    expect(await reportOn(store)).toEqual({
      lines: [
        'Shared token salt: cannot check: The shared token salt in Redis (toolhost:token-salt) is not a 16-byte base64 value: something other than toolhost wrote it. Delete the key to let the replicas write it again.',
      ],
      ok: false,
    });
  });
});
