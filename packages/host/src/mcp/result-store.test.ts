import { describe, expect, it } from 'vitest';
import { RESULT_URI_PREFIX, ResultStore } from './result-store.js';

describe('ResultStore', () => {
  it('gives each result an unguessable URI readable only by the user whose call made it', () => {
    const store = new ResultStore();
    const a = store.put('alice', 'GridApi.ListGridRecords', '{"records":[]}');
    const b = store.put('alice', 'GridApi.ListGridRecords', '{"records":[]}');
    expect(a.uri.startsWith(RESULT_URI_PREFIX)).toBe(true);
    expect(a.uri).not.toBe(b.uri);
    expect(store.get(a.uri, 'alice')?.text).toBe('{"records":[]}');
    expect(store.get(a.uri, 'bob')).toBeUndefined();
    expect(store.list('alice').map((r) => r.uri)).toEqual([a.uri, b.uri]);
    expect(store.list('bob')).toEqual([]);
  });

  it('forgets a result once its time to live has passed', () => {
    let now = 1_000_000;
    const store = new ResultStore({ ttlSeconds: 60, now: () => now });
    const r = store.put('alice', 'T.T', 'x');
    expect(r.expiresAt).toBe(1_060_000);
    now += 59_999;
    expect(store.get(r.uri, 'alice')).toBeDefined();
    now += 1;
    expect(store.get(r.uri, 'alice')).toBeUndefined();
    expect(store.list('alice')).toEqual([]);
  });

  it('drops the oldest results when the total size is over its bound', () => {
    const store = new ResultStore({ maxTotalBytes: 10 });
    const first = store.put('alice', 'T.T', '123456');
    const second = store.put('alice', 'T.T', '123456');
    expect(store.get(first.uri, 'alice')).toBeUndefined();
    expect(store.get(second.uri, 'alice')?.text).toBe('123456');
  });

  it("drops a user's own oldest results when that user is over their bound, never another's", () => {
    const store = new ResultStore({ maxTotalBytes: 100, maxUserBytes: 10 });
    const bobs = store.put('bob', 'T.T', '123456');
    const first = store.put('alice', 'T.T', '123456');
    const second = store.put('alice', 'T.T', '123456');
    expect(store.get(first.uri, 'alice')).toBeUndefined();
    expect(store.get(second.uri, 'alice')?.text).toBe('123456');
    expect(store.get(bobs.uri, 'bob')?.text).toBe('123456');
  });
});
