import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SharedPacer } from '../src/store/shared-pacer.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

let redis: RedisServer;
const clients: Redis[] = [];

/** A replica's pacer: its own Redis connection, as a separate process has. */
async function pacer(rate: number): Promise<SharedPacer> {
  const client = new Redis(redis.url, { enableOfflineQueue: false, lazyConnect: true });
  await client.connect();
  clients.push(client);
  return new SharedPacer(client, 'GridApi', rate);
}

/** The most instants within any one second. */
const busiestSecond = (times: number[]): number => {
  const sorted = [...times].sort((x, y) => x - y);
  return Math.max(...sorted.map((t) => sorted.filter((u) => u >= t && u < t + 1000).length));
};

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await redis.close();
});
beforeEach(async () => {
  await clients[0]?.flushall();
});

describe('shared pacer (Redis)', () => {
  it('lets a request to an idle key go at once', async () => {
    const p = await pacer(5);
    await p.wait('warm-up');
    const added: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      expect(await p.wait(`idle-base-${i}`)).toBe(0);
      added.push(performance.now() - started);
    }
    // One loopback round trip; the median keeps a scheduling hiccup of the test machine out.
    added.sort((x, y) => x - y);
    expect(added[10]).toBeLessThan(1);
    // A key idle again (its last request more than a spacing ago) goes at once too.
    await new Promise((r) => setTimeout(r, 250));
    expect(await p.wait('idle-base-0')).toBe(0);
  });

  it('never lets more than the rate through in any second, from two replicas, with late timers', async () => {
    const [a, b] = [await pacer(5), await pacer(5)];
    const sent: number[] = [];
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {}
    };
    await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        await (i % 2 ? a : b).wait('base-1');
        sent.push(performance.timeOrigin + performance.now());
        // A busy event loop: the timers of the requests still waiting fire late.
        spin(Math.random() * 30);
      }),
    );
    expect(sent).toHaveLength(24);
    expect(busiestSecond(sent)).toBeLessThanOrEqual(5);
  }, 20_000);
});
