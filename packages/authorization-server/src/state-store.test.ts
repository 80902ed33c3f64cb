import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from './state-store.js';

/** The memory store, with the number of records it holds in view. */
class Counted extends MemoryStateStore {
  get size(): number {
    return this.entries.size;
  }
}

describe('MemoryStateStore', () => {
  it('drops records nobody reads again once they expired, within a minute of new ones', async () => {
    const clock = { now: 1_000_000 };
    const store = new Counted(() => clock.now);
    for (let i = 0; i < 500; i += 1) await store.set(`request:${i}`, 'pending', 600);
    for (let i = 0; i < 500; i += 1) await store.increment(`register-count:10.0.0.${i}`, 3600);
    await store.set('signing-key', 'kept');
    expect(store.size).toBe(1001);

    clock.now += 3_600_000;
    await store.set('request:new', 'pending', 600);
    expect(store.size).toBe(2);
    expect(await store.get('signing-key')).toBe('kept');
    expect(await store.get('request:new')).toBe('pending');
  });

  it('sweeps at most once a minute', async () => {
    const clock = { now: 1_000_000 };
    const store = new Counted(() => clock.now);
    await store.set('first', 'x', 1);
    clock.now += 2_000;
    await store.set('second', 'x', 1);
    // Expired, but the last sweep was two seconds ago.
    expect(store.size).toBe(2);
    clock.now += 60_000;
    await store.set('third', 'x', 1);
    expect(store.size).toBe(1);
  });
});
