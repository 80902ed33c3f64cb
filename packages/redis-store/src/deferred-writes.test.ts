import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { DeferredWrites, type OwnerShare } from './deferred-writes.js';
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

const deferred = (connection: Connection, maxBytes = 100, share?: OwnerShare) =>
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

  it("lets an owner's own oldest go for its newest, where the share says so, never another owner's", async () => {
    const connection = new Connection();
    const later = deferred(connection, 50, { bytes: 20, entries: 3, room: 'own oldest' });
    const add = (owner: string, what: string, bytes: number) =>
      later.add(bytes, Date.now() + 60_000, () => connection.write(what), owner);
    expect(add('bob', 'bob 1', 10)).toBe(true);
    // Alice past her bytes, then past her count: her own oldest go, as few as make room; Bob's stays.
    for (const n of [1, 2, 3]) expect(add('alice', `alice ${n}`, 10)).toBe(true);
    for (const n of [4, 5, 6]) expect(add('alice', `alice ${n}`, 5)).toBe(true);
    expect(add('alice', 'alice 7', 1)).toBe(true);
    expect(later.size).toBe(4);
    // Larger than a share alone: refused, nothing of hers let go for it.
    expect(add('alice', 'alice too large', 21)).toBe(false);
    expect(later.size).toBe(4);
    // Carol and Dave fill the whole: Erin, with nothing of her own to let go, is refused; Alice's
    // own oldest make her room in the whole as in her share.
    expect(add('carol', 'carol 1', 20)).toBe(true);
    expect(add('dave', 'dave 1', 9)).toBe(true);
    expect(add('erin', 'erin 1', 1)).toBe(false);
    expect(add('alice', 'alice 8', 5)).toBe(true);
    connection.back();
    await vi.waitFor(() =>
      expect(connection.written).toEqual(['bob 1', 'alice 6', 'alice 7', 'carol 1', 'dave 1', 'alice 8']),
    );
  });
});
