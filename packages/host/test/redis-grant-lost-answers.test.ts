import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeRecord, Grants } from '../../authorization-server/src/grants.js';
import { RedisStateStore } from '../../authorization-server/src/redis-state-store.js';
import { connectRedis, inRedis, NO_WAIT, writeDurably } from '../../redis-store/src/redis-client.js';
import { type RelayedConnection, redisRelay } from './redis-relay.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

// The compare-and-set that spends a code or refresh token, run by Redis but its answer lost (the
// connection cut after it ran), is sent again by ioredis once it reconnects. That second run
// finds the record already as the first wrote it: the client's own presentation, not a replay,
// and its grant must not be revoked for it.

let redis: RedisServer;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedisServer();
  admin = redisClient(redis.url);
});
afterAll(async () => {
  await closeClient(admin);
  await redis.close();
});

const record: CodeRecord = {
  clientId: 'client-1',
  redirectUri: 'http://127.0.0.1/callback',
  codeChallenge: 'c'.repeat(43),
  subject: 'alice',
  scopes: ['tools:read'],
  resource: 'https://tools.example.com/mcp',
};

/**
 * Grants on a Redis reached through a relay that, once armed, lets the next spending EVAL (of a
 * code's or a grant's record, not of the person's grant list) run and loses its answer.
 */
async function grantsLosingAnEvalAnswer(
  fn: (grants: Grants, loseNextEvalAnswer: () => void) => Promise<void>,
) {
  let armed = false;
  let cut: RelayedConnection | undefined;
  let lost = 0;
  const relay = await redisRelay(redis.port, {
    fromClient: (d, connection) => {
      const spending = d.includes('EVAL') && (d.includes(':code:') || d.includes(':grant:'));
      if (armed && spending) [armed, cut] = [false, connection];
      connection.upstream.write(d);
    },
    fromUpstream: (d, connection) => {
      if (connection !== cut) return void connection.client.write(d);
      cut = undefined;
      lost += 1;
      connection.end();
    },
  });
  const client = await connectRedis(relay.url);
  try {
    const grants = new Grants(
      new RedisStateStore(
        {
          call: (command, ...args) => inRedis(() => client.call(command, ...args)),
          callDurably: async (command, ...args) =>
            (await writeDurably(client, (p) => p.call(command, ...args), NO_WAIT))[0],
        },
        `grants-lost-${Math.random()}:`,
      ),
      { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 3600 },
    );
    await fn(grants, () => {
      armed = true;
    });
    expect(lost).toBe(1);
  } finally {
    client.disconnect();
    relay.close();
  }
}

describe('own authorization server on Redis: a spending write whose answer was lost', () => {
  it("rotating a refresh token answers the new one, and the client's grant stays", async () => {
    await grantsLosingAnEvalAnswer(async (grants, loseNextEvalAnswer) => {
      const started = await grants.start((await grants.presentCode(await grants.issueCode(record)))!, true);
      const presented = await grants.presentRefresh(started!.refreshToken!, record.clientId);
      loseNextEvalAnswer();
      const next = await grants.rotate(presented!);
      expect(next).toMatch(new RegExp(`^${started!.grant.id}\\.`));
      expect(await grants.grant(started!.grant.id)).toMatchObject({ subject: 'alice' });
      const again = await grants.presentRefresh(next!, record.clientId);
      expect(await grants.rotate(again!)).toBeDefined();
    });
  });

  it('exchanging a code starts its grant, which is not revoked', async () => {
    await grantsLosingAnEvalAnswer(async (grants, loseNextEvalAnswer) => {
      const presented = await grants.presentCode(await grants.issueCode(record));
      loseNextEvalAnswer();
      const started = await grants.start(presented!, true);
      expect(started?.grant.subject).toBe('alice');
      expect(await grants.grant(started!.grant.id)).toMatchObject({ subject: 'alice' });
      const refresh = await grants.presentRefresh(started!.refreshToken!, record.clientId);
      expect(await grants.rotate(refresh!)).toBeDefined();
    });
  });
});
