import { describe, expect, it } from 'vitest';
import { Pacer } from './pacer.js';

/** The most instants within any one second. */
const busiestSecond = (times: number[]): number => {
  const sorted = [...times].sort((x, y) => x - y);
  return Math.max(...sorted.map((t) => sorted.filter((u) => u >= t && u < t + 1000).length));
};

describe('Pacer', () => {
  it('lets a request to an idle key go at once', async () => {
    const pacer = new Pacer(5);
    const started = performance.now();
    expect(await pacer.wait('idle')).toBe(0);
    // A slot at 5 per second is 200 ms away: well under that means it did not wait for one
    // (a tighter bound only measures how busy the machine running the tests is).
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('never lets more than the rate through in any second, with late timers', async () => {
    const pacer = new Pacer(5);
    const sent: number[] = [];
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {}
    };
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        await pacer.wait('base-1');
        sent.push(performance.now());
        // A busy event loop: the timers of the requests still waiting fire late.
        spin(15 + Math.random() * 25);
      }),
    );
    expect(busiestSecond(sent)).toBeLessThanOrEqual(5);
  }, 20_000);
});
