import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { DeferredWrites } from './deferred-writes.js';
import type { SharedRedis } from './redis-client.js';

/** A connection as the store's: refused until ready, told ready again as Redis comes back. */
class Connection extends EventEmitter {
  status = 'reconnecting';
  readonly written: string[] = [];
  write(what: string): Promise<void> {
    if (this.status !== 'ready') return Promise.reject(new Error("Stream isn't writeable"));
    this.written.push(what);
    return Promise.resolve();
  }
  back(): void {
    this.status = 'ready';
    this.emit('ready');
  }
}

const deferred = (connection: Connection, maxBytes = 100, share?: { bytes: number; entries: number }) =>
  new DeferredWrites(connection as unknown as SharedRedis, maxBytes, share);

describe('DeferredWrites', () => {
  it('writes what Redis refused once it answers, in the order first tried', async () => {
    const connection = new Connection();
    const later = deferred(connection);
    for (const what of ['one', 'two', 'three'])
      later.add(10, Date.now() + 60_000, () => connection.write(what));
    await new Promise((r) => setTimeout(r, 50));
    expect(connection.written).toEqual([]);
    connection.back();
    await vi.waitFor(() => expect(connection.written).toEqual(['one', 'two', 'three']));
    expect(later.size).toBe(0);
  });

  it('keeps the newest within its bytes, and none past its deadline', async () => {
    const connection = new Connection();
    const later = deferred(connection, 25);
    later.add(10, Date.now() + 60_000, () => connection.write('oldest'));
    later.add(10, Date.now() + 60_000, () => connection.write('older'));
    later.add(10, Date.now() + 60_000, () => connection.write('newest'));
    later.add(30, Date.now() + 60_000, () => connection.write('too large alone'));
    later.add(1, Date.now() + 30, () => connection.write('expired first'));
    expect(later.size).toBe(3);
    await new Promise((r) => setTimeout(r, 60));
    connection.back();
    await vi.waitFor(() => expect(connection.written).toEqual(['older', 'newest']));
  });

  it('gives up what waits once the connection is closed for good', async () => {
    const connection = new Connection();
    const later = deferred(connection);
    later.add(10, Date.now() + 60_000, () => connection.write('never'));
    connection.status = 'end';
    await vi.waitFor(() => expect(later.size).toBe(0), { timeout: 3000 });
    expect(connection.written).toEqual([]);
  });

  it("keeps each owner within its share, so that one owner's writes neither push out nor refuse another's", async () => {
    const connection = new Connection();
    const later = deferred(connection, 100, { bytes: 30, entries: 2 });
    const add = (owner: string, what: string, bytes = 10) =>
      later.add(bytes, Date.now() + 60_000, () => connection.write(what), owner);
    expect(add('alice', 'alice 1')).toBe(true);
    // Bob fills his share, by bytes then by count: what would take him past it is refused.
    expect(add('bob', 'bob 1', 25)).toBe(true);
    expect(add('bob', 'bob 2', 10)).toBe(false);
    expect(add('bob', 'bob 3', 5)).toBe(true);
    expect(add('bob', 'bob 4', 1)).toBe(false);
    expect(add('alice', 'alice 2')).toBe(true);
    connection.back();
    await vi.waitFor(() => expect(connection.written).toEqual(['alice 1', 'bob 1', 'bob 3', 'alice 2']));
    // Written, their room is theirs again.
    expect(add('bob', 'bob 5', 25)).toBe(true);
    await vi.waitFor(() => expect(connection.written.at(-1)).toBe('bob 5'));
  });

  it('refuses, with shares, what the whole has no room for, rather than drop what it took', async () => {
    const connection = new Connection();
    const later = deferred(connection, 25, { bytes: 20, entries: 10 });
    expect(later.add(10, Date.now() + 60_000, () => connection.write('carol'), 'carol')).toBe(true);
    expect(later.add(10, Date.now() + 60_000, () => connection.write('dave'), 'dave')).toBe(true);
    expect(later.add(10, Date.now() + 60_000, () => connection.write('erin'), 'erin')).toBe(false);
    // One past its deadline leaves its owner's share, and the whole, with its room again.
    expect(later.add(5, Date.now() + 30, () => connection.write('late'), 'erin')).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(later.add(5, Date.now() + 60_000, () => connection.write('erin'), 'erin')).toBe(true);
    connection.back();
    await vi.waitFor(() => expect(connection.written).toEqual(['carol', 'dave', 'erin']));
  });
});
