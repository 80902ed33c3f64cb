import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from './concurrency-limit.js';

describe('ConcurrencyLimit', () => {
  it('never runs more than the limit at once and runs every task', async () => {
    const limit = new ConcurrencyLimit(3);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        limit.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 2));
          running -= 1;
          return i;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('lets a waiting task leave when its signal aborts', async () => {
    const limit = new ConcurrencyLimit(1);
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    const second = limit.run(async () => 'ran', ac.signal);
    ac.abort(new Error('cancelled'));
    await expect(second).rejects.toThrow('cancelled');
    expect(limit.pending).toBe(0);
    release();
    await first;
    expect(await limit.run(async () => 'free')).toBe('free');
  });
});
