import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DROPPED_FROZEN, dropFrozen } from './frozen-connection.js';
import type { StoreLogger } from './ports.js';
import { RedisChannels } from './redis-channels.js';
import { connectRedis } from './redis-client.js';
import { RedisSessions } from './redis-sessions.js';
import { ANSWERS_CHANNEL, answersKey } from './session-relays.js';
import { StoreHealth } from './store-health.js';
import { type LocalRedis, startLocalRedis } from './test-support/local-redis.js';

// A paused Redis (SIGSTOP) keeps its connections open and answers nothing: what a host sends
// it meanwhile is held in the host's memory (the client's queue, the socket's buffer) until it
// answers. These measure what is held, not the process's memory: the same on a loaded machine.

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (check()) return true;
  return check();
}

function logged() {
  const lines: string[] = [];
  const logger: StoreLogger = {
    debug: () => {},
    info: (_o: unknown, msg: string) => void lines.push(`info ${msg}`),
    warn: (_o: unknown, msg: string) => void lines.push(`warn ${msg}`),
  };
  return { lines, logger };
}

let server: LocalRedis;
beforeAll(async () => {
  server = await startLocalRedis();
});
afterAll(async () => {
  await server.stop();
});

describe('a client answer too large to relay', () => {
  it('is refused before anything is sent: none kept, none published, none queued while Redis is paused', async () => {
    const redis = (await connectRedis(server.url, undefined, { commandTimeoutMs: 3000 })) as Redis;
    const channels = await RedisChannels.open(redis);
    const heard: string[] = [];
    await channels.listen(ANSWERS_CHANNEL, (text) => heard.push(text));
    try {
      const sessions = new RedisSessions(redis, channels, 60_000);
      const answer = (bytes: number) => ({ jsonrpc: '2.0', id: 0, result: { pad: 'x'.repeat(bytes) } });
      // Within 256 KiB: kept and heard, as ever.
      await sessions.relayAnswers('s-small', 'alice', answer(200 * 1024));
      expect(await redis.llen(answersKey('s-small'))).toBe(1);
      expect(await until(() => heard.length === 1, 2000)).toBe(true);

      const refused = sessions.relayAnswers('s-big', 'alice', answer(4 * MiB - 1024));
      await expect(refused).rejects.toMatchObject({
        code: 'payload_too_large',
        message: expect.stringMatching(/take \d+ bytes; .* at most 262144/),
      });
      expect(await redis.exists(answersKey('s-big'))).toBe(0);

      server.pause();
      try {
        const started = Date.now();
        const whilePaused = sessions.relayAnswers('s-big', 'alice', answer(MiB));
        await expect(whilePaused).rejects.toMatchObject({ code: 'payload_too_large' });
        // Refused at once, not at the command timeout, and nothing waits to be written.
        expect(Date.now() - started).toBeLessThan(1000);
        expect(redis.commandQueue.length).toBe(0);
        expect(redis.stream.writableLength).toBe(0);
      } finally {
        server.resume();
      }
      await sleep(200);
      expect(heard).toHaveLength(1);
    } finally {
      await channels.close();
      redis.disconnect();
    }
  }, 20_000);
});

describe('a Redis frozen under a ready connection', () => {
  it('has its connection dropped: what waited is freed and not sent, calls fail at once, one outage logged', async () => {
    const { lines, logger } = logged();
    const redis = (await connectRedis(server.url, logger, { commandTimeoutMs: 4000 })) as Redis;
    // Each PING given 300 ms: frozen is judged after two unanswered, well before a command's 4 s.
    const health = new StoreHealth(redis, 'redis://test', logger, 300, 100);
    try {
      server.pause();
      try {
        const started = Date.now();
        const writes = Array.from({ length: 20 }, (_, i) =>
          redis.set(`frozen:${i}`, 'y'.repeat(MiB)).then(
            () => 'written',
            (e: Error) => e.message,
          ),
        );
        expect(redis.commandQueue.length).toBeGreaterThanOrEqual(20);
        // Dropped: the queue and the socket's buffer (20 MiB) go, long before the command timeout.
        expect(await until(() => redis.commandQueue.length === 0 && redis.status !== 'ready', 3000)).toBe(
          true,
        );
        const outcomes = await Promise.all(writes);
        expect(Date.now() - started).toBeLessThan(4000);
        expect(new Set(outcomes)).toEqual(new Set(['Redis stopped answering: its connection was dropped']));
        // A call meanwhile is refused at once rather than queued behind a frozen Redis.
        const asked = Date.now();
        await expect(redis.get('frozen:0')).rejects.toThrow();
        expect(Date.now() - asked).toBeLessThan(500);
        expect(health.up).toBe(false);
        // Reconnecting, only its handshake waits on the new connection, none of what was dropped.
        await sleep(500);
        expect(redis.commandQueue.toArray().filter((item) => item.command.name === 'set')).toEqual([]);
        expect(redis.stream.writableLength).toBeLessThan(1024);
      } finally {
        server.resume();
      }
      expect(await until(() => redis.status === 'ready', 10_000)).toBe(true);
      // Their callers were told they failed: what the host held is not sent once Redis answers
      // (what the system had already taken off the socket, a few MiB, may still arrive).
      expect(await redis.exists(...Array.from({ length: 20 }, (_, i) => `frozen:${i}`))).toBeLessThan(10);
      expect(await until(() => health.up, 3000)).toBe(true);
      expect(lines).toEqual([
        'warn shared store (Redis) unreachable',
        'info shared store (Redis) reachable again',
      ]);
    } finally {
      health.stop();
      redis.disconnect();
    }
  }, 30_000);

  it('keeps the connection of a Redis silent for less than a command’s timeout (busy a moment)', async () => {
    const redis = (await connectRedis(server.url, undefined, { commandTimeoutMs: 4000 })) as Redis;
    // As the shared store sets it up: PINGs of 300 ms, dropped only after a command's timeout.
    const health = new StoreHealth(redis, 'redis://test', undefined, 300, 100, 4000);
    let dropped = 0;
    redis.on(DROPPED_FROZEN, () => {
      dropped += 1;
    });
    try {
      server.pause();
      const write = redis.set('busy:1', 'y').then(
        () => 'written',
        (e: Error) => e.message,
      );
      // Several PINGs in a row go unanswered meanwhile, the write still within its timeout.
      await sleep(1500);
      server.resume();
      expect(await write).toBe('written');
      expect(dropped).toBe(0);
      expect(await redis.get('busy:1')).toBe('y');
    } finally {
      server.resume();
      health.stop();
      redis.disconnect();
    }
  }, 20_000);

  it('has Redis end the dropped connection first thing on the next connection', async () => {
    const redis = (await connectRedis(server.url, undefined, { commandTimeoutMs: 4000 })) as Redis;
    const kills = async () =>
      Number(/cmdstat_client\|kill:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    try {
      await redis.config('RESETSTAT');
      // What the new connection is known by, for a drop to name it to Redis.
      await redis.client('ID');
      server.pause();
      const pending = redis.set('claim', 'mine').catch(() => 'failed');
      dropFrozen(redis);
      expect(await pending).toBe('failed');
      // What a give-back sends once the next connection is ready (MONITOR shows no CLIENT KILL).
      const gaveBack = new Promise((resolve) =>
        redis.once('ready', () => redis.del('claim').then(resolve, resolve)),
      );
      server.resume();
      await gaveBack;
      expect(await kills()).toBe(1);
      expect(await redis.get('claim')).toBeNull();
    } finally {
      server.resume();
      redis.disconnect();
    }
  }, 20_000);
});
