import type { StoredToken } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { RECENT_TOKEN_MS, RecentTokens } from './recent-tokens.js';

const token = (accessToken: string): StoredToken => ({ accessToken, scopes: [] });

/** A store whose reads are counted and answered when the test says. */
function slowStore() {
  let value = token('t1');
  const waiting: (() => void)[] = [];
  let reads = 0;
  return {
    set: (v: StoredToken) => {
      value = v;
    },
    load: () => {
      reads += 1;
      return new Promise<StoredToken>((resolve) => waiting.push(() => resolve(value)));
    },
    answer: () => {
      for (const go of waiting.splice(0)) go();
    },
    get reads() {
      return reads;
    },
  };
}

describe('RecentTokens', () => {
  it('reuses a read for a moment, and shares one read between concurrent callers', async () => {
    let now = 1000;
    const recent = new RecentTokens(RECENT_TOKEN_MS, () => now);
    const store = slowStore();
    const both = Promise.all([recent.read('k', store.load), recent.read('k', store.load)]);
    store.answer();
    expect((await both).map((t) => t?.accessToken)).toEqual(['t1', 't1']);
    expect(store.reads).toBe(1);
    now += RECENT_TOKEN_MS - 1;
    expect((await recent.read('k', store.load))?.accessToken).toBe('t1');
    expect(store.reads).toBe(1);
    now += 1;
    const again = recent.read('k', store.load);
    store.answer();
    await again;
    expect(store.reads).toBe(2);
  });

  it('reads the store again once the token changed', async () => {
    const recent = new RecentTokens();
    const store = slowStore();
    const first = recent.read('k', store.load);
    store.answer();
    await first;
    store.set(token('t2'));
    recent.changed('k');
    const second = recent.read('k', store.load);
    store.answer();
    expect((await second)?.accessToken).toBe('t2');
  });

  it('does not keep a read that a change overtook', async () => {
    const recent = new RecentTokens();
    const store = slowStore();
    const overtaken = recent.read('k', store.load);
    recent.changed('k'); // another replica's set, heard while our GET was in flight
    store.answer();
    expect((await overtaken)?.accessToken).toBe('t1');
    store.set(token('t2'));
    const next = recent.read('k', store.load);
    store.answer();
    expect((await next)?.accessToken).toBe('t2');
    expect(store.reads).toBe(2);
  });

  it('keeps nothing for a user without a token', async () => {
    const recent = new RecentTokens();
    let reads = 0;
    const none = async () => {
      reads += 1;
      return undefined;
    };
    await recent.read('k', none);
    await recent.read('k', none);
    expect(reads).toBe(2);
  });
});
