import { describe, expect, it, vi } from 'vitest';
import { Pacer } from './pacer.js';

/** The most instants within any one second. */
const busiestSecond = (times: number[]): number => {
  const sorted = [...times].sort((x, y) => x - y);
  return Math.max(...sorted.map((t) => sorted.filter((u) => u >= t && u < t + 1000).length));
};

describe('Pacer', () => {
  it('lets a request to an idle key go at once', async () => {
    // On a frozen clock: a pacer that waited for a slot (200 ms away at 5 per second) would
    // never resolve here, however fast or busy the machine; no wall-clock bound needed.
    vi.useFakeTimers();
    try {
      const pacer = new Pacer(5);
      expect(await pacer.wait('idle')).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      // The next one, at once after it, is the one that waits its turn.
      let second: number | undefined;
      void pacer.wait('idle').then((w) => {
        second = w;
      });
      await vi.advanceTimersByTimeAsync(219);
      expect(second).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(second).toBe(220);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the next requests a window after one that left late (after a wait for a slot)', async () => {
    vi.useFakeTimers();
    try {
      const pacer = new Pacer(5);
      const released: number[] = [];
      let leave!: () => void;
      const late = new Promise<void>((r) => {
        leave = r;
      });
      const start = Date.now();
      // The first leaves 700 ms after its turn; the others as soon as they are let go.
      const waits = [pacer.wait('k', undefined, late)];
      for (let i = 1; i < 7; i += 1) waits.push(pacer.wait('k', undefined, Promise.resolve()));
      for (const [i, w] of waits.entries())
        void w.then(() => released.push(i === 0 ? 0 : Date.now() - start));
      await vi.advanceTimersByTimeAsync(700);
      leave();
      await vi.advanceTimersByTimeAsync(3000);
      await Promise.all(waits);
      const left = [700, ...released.slice(1).sort((x, y) => x - y)];
      // By turns alone the sixth would go at 1100 ms: with the first leaving at 700, six would
      // leave within 880 ms (220 … 1100). Counted from when each left, the sixth waits until
      // a window after the second (1320 ms).
      expect(left.slice(1, 5)).toEqual([220, 440, 660, 880]);
      expect(left[5]).toBe(1320);
      const sorted = [...left].sort((x, y) => x - y);
      for (let i = 0; i + 5 < sorted.length; i += 1)
        expect(sorted[i + 5]! - sorted[i]!).toBeGreaterThanOrEqual(1100);
    } finally {
      vi.useRealTimers();
    }
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
    // No margin: the promise is exact (the rate in any second), and each instant is taken in
    // this process as its request is let go, so a busy or loaded machine only spreads them out.
    expect(busiestSecond(sent)).toBeLessThanOrEqual(5);
  }, 20_000);
});
