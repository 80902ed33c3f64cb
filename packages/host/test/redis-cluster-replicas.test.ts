import { RedisStateStore } from '@toolhost/authorization-server';
import { describe, expect, it } from 'vitest';
import { RedisChannels } from '../../redis-store/src/redis-channels.js';
import { RedisSessions } from '../../redis-store/src/redis-sessions.js';
import { admin, replica, sharedOf, suite, useClusterSuite } from './redis-cluster-setup.js';
import {
  browserAuthorizationAcrossReplicas,
  confirmationAcrossReplicas,
  elicitationCompletionAcrossReplicas,
  largeResultOnOtherReplica,
  pendingAuthorizationAcrossReplicas,
  perUserBoundsAcrossReplicas,
  sessionAcrossReplicas,
  writesAcrossReplicas,
} from './replica-scenarios.js';

useClusterSuite();

// What replicas do together through a real three-master Redis Cluster (each scenario's keys in
// one hash slot): writes, authorizations, sessions, large results, per-user bounds. Start-up,
// tokens, faults and pacing are in redis-cluster.test.ts.

describe('shared store (Redis Cluster): writes and authorizations', () => {
  it('honours idempotency keys and previews across replicas: sent once, answered on either', async () => {
    await writesAcrossReplicas(suite());
  });

  it('completes on replica B a pending authorization replica A started, once, its keys in one slot', async () => {
    await pendingAuthorizationAcrossReplicas(suite());
  });

  it('completes in a browser, on replica B behind a balancer, the authorization replica A handed out', async () => {
    await browserAuthorizationAcrossReplicas(suite());
  }, 60_000);

  it('tells a client waiting on replica A (URL elicitation) when the callback landed on replica B', async () => {
    await elicitationCompletionAcrossReplicas(suite());
  }, 60_000);

  it("hands the person's confirmation to the replica that asked, wherever it lands", async () => {
    await confirmationAcrossReplicas(suite());
  }, 60_000);

  it('serves one session whose requests alternate between two replicas, for its user only', async () => {
    await sessionAcrossReplicas(suite());
  }, 60_000);

  it("serves a large result's resource_link from the other replica, to its owner only", async () => {
    await largeResultOnOtherReplica(suite());
  }, 60_000);

  it("bounds a user's previews and idempotency keys across the replicas (one slot per user)", async () => {
    await perUserBoundsAcrossReplicas(suite());
  });
});

describe('shared store (Redis Cluster): a session ended', () => {
  it('leaves neither its notices nor its answers, which lie in other slots than its record', async () => {
    const { redis } = sharedOf(await replica());
    const channels = await RedisChannels.open(redis);
    try {
      const sessions = new RedisSessions(redis, channels, 60_000);
      await sessions.save('s-ended', { userId: 'alice', owner: 'alice', initialize: {} });
      await sessions.putBackNotices('s-ended', ['flow-1']);
      await sessions.relayAnswers('s-ended', 'alice', [{ jsonrpc: '2.0', id: 0, result: {} }]);
      expect(await admin.exists('toolhost:session:notices:s-ended')).toBe(1);
      expect(await admin.exists('toolhost:session:answers:s-ended')).toBe(1);
      await sessions.remove('s-ended');
      expect(await admin.exists('toolhost:session:s-ended')).toBe(0);
      expect(await admin.exists('toolhost:session:notices:s-ended')).toBe(0);
      expect(await admin.exists('toolhost:session:answers:s-ended')).toBe(0);
    } finally {
      await channels.close();
    }
  });
});

describe("shared store (Redis Cluster): the own authorization server's state", () => {
  it('spends a code or refresh token by one compare-and-set on its key, durably, once of several raced', async () => {
    const store = new RedisStateStore(sharedOf(await replica()).replicas.redis);
    await store.set('grant:g', 'token 1', 60, { durable: true });
    expect(await store.compareAndSet('grant:g', 'token 0', 'token 2', 60, { durable: true })).toBe(false);
    const raced = await Promise.all(
      [1, 2, 3].map((i) =>
        store.compareAndSet('grant:g', 'token 1', `token 2 of ${i}`, 60, { durable: true }),
      ),
    );
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await admin.get('toolhost:as:grant:g')).toBe(`token 2 of ${raced.indexOf(true) + 1}`);
    expect(await admin.ttl('toolhost:as:grant:g')).toBeGreaterThan(50);
    // None expected: written only where there is none, here without an expiry.
    expect(await store.compareAndSet('grant:g', undefined, 'other')).toBe(false);
    expect(await store.compareAndSet('code:c', undefined, 'spent g')).toBe(true);
    expect([await admin.get('toolhost:as:code:c'), await admin.ttl('toolhost:as:code:c')]).toEqual([
      'spent g',
      -1,
    ]);
  });
});
