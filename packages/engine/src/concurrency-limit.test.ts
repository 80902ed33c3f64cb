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

  it('fails a task that waited longer than it may, in order, and the rest run once slots free', async () => {
    const limit = new ConcurrencyLimit(1);
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((r) => (release = r)));
    const started = Date.now();
    const early = limit.run(async () => 'early', undefined, 30);
    const patient = limit.run(async () => 'patient', undefined, 5000);
    const late = limit.run(async () => 'late', undefined, 60);
    await expect(early).rejects.toThrow(
      /No upstream request slot became free within 30 ms \(1 requests in flight\)/,
    );
    await expect(late).rejects.toThrow(/within 60 ms/);
    // A lower bound (the 60 ms deadline, less 5 ms for timer rounding): a loaded machine only
    // makes the wait longer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(limit.pending).toBe(1);
    release();
    await first;
    expect(await patient).toBe('patient');
    expect(limit.pending).toBe(0);
  });

  it('keeps no timer once nobody waits, so the process can exit', async () => {
    const limit = new ConcurrencyLimit(1);
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((r) => (release = r)));
    const second = limit.run(async () => 'second', undefined, 60_000);
    const handles = () =>
      (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo();
    const timers = () => handles().filter((h) => h === 'Timeout').length;
    const waiting = timers();
    release();
    await first;
    expect(await second).toBe('second');
    expect(timers()).toBe(waiting - 1);
  });

  it('rejects at once a task whose signal has already aborted, taking no slot', async () => {
    const limit = new ConcurrencyLimit(1);
    let release!: () => void;
    const first = limit.run(() => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(limit.run(async () => 'never', ac.signal, 1000)).rejects.toThrow('gone');
    expect(limit.pending).toBe(0);
    release();
    await first;
  });
});
