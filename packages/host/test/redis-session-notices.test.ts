import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSharedStore, type SharedStore } from '../src/store/shared-store.js';
import { redisRelay } from './redis-relay.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

// A sign-in's completion notice is kept in Redis for its session until the client's event
// stream takes it. A connection lost as the notice is stored must not leave the session's list
// of notices in Redis for good: the session may never come back to take it. A session's end is
// a notice too: a replica that missed it learns of it when the session's record is gone.

/**
 * A loopback link to Redis that drops the connection, unsent, on the first command matching
 * `cutOn`, and refuses connections from then on until `restore()`: Redis briefly away.
 */
async function cuttingLink(port: number, cutOn: RegExp) {
  let armed = true;
  let away = false;
  const relay = await redisRelay(port, {
    accept: () => !away,
    fromClient: (d, { upstream, end }) => {
      if (armed && cutOn.test(d.toString('latin1'))) {
        armed = false;
        away = true;
        return end();
      }
      upstream.write(d);
    },
  });
  return {
    url: relay.url,
    restore() {
      away = false;
    },
    close: relay.close,
  };
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(() => redis?.close());

type Sessions = ReturnType<SharedStore['replicas']['sessions']>;

/**
 * A replica's shared sessions (idle after `idleMs`) reaching Redis at `url`, and an admin client
 * of the Redis itself, for `fn`; both closed after, whatever `fn` did.
 */
async function withSessions(
  url: string,
  idleMs: number,
  fn: (sessions: Sessions, admin: ReturnType<typeof redisClient>) => Promise<void>,
): Promise<void> {
  const admin = redisClient(redis.url);
  let store: SharedStore | undefined;
  try {
    store = await openSharedStore(
      {},
      { TOOLHOST_REDIS_URL: url, TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-notices' },
    );
    if (!store) throw new Error('no shared store opened');
    await fn(store.replicas.sessions(idleMs), admin);
  } finally {
    await store?.close();
    await closeClient(admin);
  }
}

describe('a completion notice stored as the connection to Redis drops', () => {
  it('leaves no list of notices without an expiry', async () => {
    const link = await cuttingLink(redis.port, /PEXPIRE[\s\S]*toolhost:session:notices:/i);
    try {
      await withSessions(link.url, 60_000, async (sessions, admin) => {
        await sessions.expectCompletion('session-1', 'flow-1', 60_000);
        await expect(sessions.completed('flow-1')).rejects.toMatchObject({ code: 'store_unavailable' });
        link.restore();
        // -1: the key is there and never expires; -2 (not written) or a positive TTL are both fine.
        expect(await admin.pttl('toolhost:session:notices:session-1')).not.toBe(-1);
      });
    } finally {
      link.close();
    }
  });
});

describe('a session whose record is gone as this replica extends its life', () => {
  it('counts as ended, as when its end is heard', async () => {
    await withSessions(redis.url, 1000, async (sessions, admin) => {
      const ended: string[] = [];
      await sessions.onClosed((id) => ended.push(id));
      const record = { userId: 'alice', owner: 'alice', initialize: {} };
      await sessions.save('session-ended', record);
      await sessions.save('session-open', record);
      // Ended on a replica whose message never reached this one: only its record is gone.
      await admin.del('toolhost:session:session-ended');
      // Past a tenth of the idle lifetime, when a use extends it again.
      await sleep(150);
      // In this order, the open one's answer is in before the ended one's.
      sessions.touch('session-open');
      sessions.touch('session-ended');
      await vi.waitFor(() => expect(ended).toEqual(['session-ended']));
    });
  });
});

describe('completion notices put back when the stream they were taken for closed', () => {
  it('are first in line in their order, and told to every replica as when first stored', async () => {
    await withSessions(redis.url, 60_000, async (sessions, admin) => {
      const heard: string[] = [];
      // The replica holding the client's new stream may be another: it hears of them.
      await sessions.onCompletion((id, elicitationId) => heard.push(`${id} ${elicitationId}`));
      await sessions.expectCompletion('session-2', 'flow-3', 60_000);
      await sessions.completed('flow-3');
      await sessions.putBackNotices('session-2', ['flow-1', 'flow-2']);
      expect(await admin.lrange('toolhost:session:notices:session-2', 0, -1)).toEqual([
        'flow-1',
        'flow-2',
        'flow-3',
      ]);
      await vi.waitFor(() =>
        expect(heard).toEqual(['session-2 flow-3', 'session-2 flow-1', 'session-2 flow-2']),
      );
      expect(await sessions.takeNotices('session-2')).toEqual(['flow-1', 'flow-2', 'flow-3']);
    });
  });
});
