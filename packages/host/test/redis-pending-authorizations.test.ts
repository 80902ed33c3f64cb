import { MAX_PENDING_PER_USER, PENDING_TTL_MS, TokenCipher } from '@toolhost/credentials';
import { openSharedCipher, RedisPendingAuthorizations } from '@toolhost/redis-store';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { redisRelay } from './redis-relay.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

const KEY = 'token-encryption-key-for-replicas';
let redis: RedisServer;
let a: Redis;
let b: Redis;

const entry = (userId: string, flowId: string) => ({
  userId,
  flowId,
  codeVerifier: `verifier-${flowId}-never-in-clear`,
  scopes: ['items.read'],
  authorizeUrl: 'https://as.example/authorize',
});

/** One provider's pending flows as two replicas see them, each with its own connection. */
async function replicas(ttlMs = PENDING_TTL_MS) {
  const bounds = { ttlMs, maxPerUser: MAX_PENDING_PER_USER };
  const [ca, cb] = [await openSharedCipher(a, TokenCipher, KEY), await openSharedCipher(b, TokenCipher, KEY)];
  return [
    new RedisPendingAuthorizations(a, ca, 'echo-auth', bounds),
    new RedisPendingAuthorizations(b, cb, 'echo-auth', bounds),
  ] as const;
}

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

describe('pending authorizations in Redis', () => {
  it('lets any replica find, open and take a flow, once, with the verifier sealed', async () => {
    const [one, two] = await replicas();
    await one.add('state-1', entry('alice', 'flow-1'));
    for (const key of await a.keys('toolhost:oauth:*'))
      if ((await a.type(key)) === 'string') expect(await a.get(key)).not.toContain('never-in-clear');
    expect((await two.byFlow('flow-1'))?.state).toBe('state-1');
    expect((await two.get('state-1'))?.opened).toBe(false);
    await two.markOpened('flow-1');
    expect((await one.byFlow('flow-1'))?.entry.opened).toBe(true);
    const taken = await Promise.all([one.take('state-1'), two.take('state-1')]);
    expect(taken.filter(Boolean).map((t) => t!.codeVerifier)).toEqual(['verifier-flow-1-never-in-clear']);
    expect(await one.byFlow('flow-1')).toBeUndefined();
    expect(await a.keys('toolhost:oauth:*')).toEqual([]);
  });

  it('caps flows per user across replicas, so one user cannot push out everyone else’s', async () => {
    const [one, two] = await replicas();
    await one.add('bob-state', entry('bob', 'bob-flow'));
    for (let i = 0; i < 40; i += 1)
      await (i % 2 ? one : two).add(`alice-${i}`, entry('alice', `alice-flow-${i}`));
    expect((await two.get('bob-state'))?.userId).toBe('bob');
    // Alice's oldest flows made room for her newest 32.
    expect(await one.get('alice-7')).toBeUndefined();
    expect((await one.get('alice-8'))?.userId).toBe('alice');
    expect((await two.get('alice-39'))?.userId).toBe('alice');
    expect(await a.zcard('toolhost:oauth:{echo-auth}:user:alice')).toBe(32);
  });

  it('holds the cap when two replicas add one user’s flows at once', async () => {
    const [one, two] = await replicas();
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? one : two).add(`s-${i}`, entry('alice', `f-${i}`))),
    );
    expect(await a.zcard('toolhost:oauth:{echo-auth}:user:alice')).toBe(32);
    expect(await a.keys('toolhost:oauth:{echo-auth}:flow:*')).toHaveLength(32);
    expect(await a.keys('toolhost:oauth:{echo-auth}:state:*')).toHaveLength(32);
  });

  it('expires flows with Redis (PX)', async () => {
    const [one] = await replicas(200);
    await one.add('s1', entry('u', 'f1'));
    expect(await a.pttl('toolhost:oauth:{echo-auth}:flow:f1')).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await one.get('s1')).toBeUndefined();
    expect(await a.exists('toolhost:oauth:{echo-auth}:flow:f1', 'toolhost:oauth:{echo-auth}:state:s1')).toBe(
      0,
    );
  });
});

/** EXEC as ioredis writes it (RESP, the name in lower case). */
const EXEC = '*1\r\n$4\r\nexec\r\n';

/**
 * A loopback proxy to Redis that, once `holdNextExec` is called, passes on the next
 * transaction's commands but holds back its EXEC until `release`: Redis has them queued, and
 * the test may change what they will meet when they run.
 */
async function execHoldingProxy(port: number) {
  let arm = false;
  let release: () => void = () => {};
  const relay = await redisRelay(port, {
    fromClient: (d, { upstream }) => {
      const at = arm ? d.indexOf(EXEC) : -1;
      if (at < 0) return void upstream.write(d);
      arm = false;
      upstream.write(d.subarray(0, at));
      release = () => upstream.write(d.subarray(at));
    },
  });
  return {
    url: relay.url,
    holdNextExec: () => {
      arm = true;
    },
    release: () => release(),
    close: relay.close,
  };
}

describe('pending authorizations in Redis, a command of the transaction refused when it runs', () => {
  it('fails the add (store_unavailable) rather than take a flow stored nowhere for added', async () => {
    // A transaction's commands are checked when queued (an OOM or READONLY Redis aborts it
    // whole, a rejection) and again when EXEC runs them: a command refused then is an error in
    // EXEC's answer, the others applied. ACLs tightened in between are one such refusal.
    const proxy = await execHoldingProxy(redis.port);
    const client = redisClient(proxy.url);
    try {
      const bounds = { ttlMs: PENDING_TTL_MS, maxPerUser: MAX_PENDING_PER_USER };
      const pending = new RedisPendingAuthorizations(
        client,
        await openSharedCipher(client, TokenCipher, KEY),
        'echo-auth',
        bounds,
      );
      proxy.holdNextExec();
      const adding = pending.add('state-1', entry('alice', 'flow-1'));
      adding.catch(() => {});
      // The flow's two SETs queued, their EXEC held back.
      await expect.poll(async () => String(await a.client('LIST')), { timeout: 5000 }).toContain('multi=2');
      await a.acl('SETUSER', 'default', '-set');
      proxy.release();
      await expect(adding).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(await pending.get('state-1')).toBeUndefined();
    } finally {
      await a.acl('SETUSER', 'default', '+@all');
      await closeClient(client);
      proxy.close();
    }
  });
});
