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

  it('keeps and lets go as a plain list would, over many owners, drops and deadlines', async () => {
    // The plain list: every rule said once, by a pass over all that is kept.
    interface Kept {
      what: string;
      bytes: number;
      until: number;
      owner: string;
    }
    const share = { bytes: 40, entries: 4, room: 'own oldest' } as const;
    const maxBytes = 120;
    let kept: Kept[] = [];
    const ownOf = (owner: string) => kept.filter((k) => k.owner === owner);
    const bytesOf = (list: Kept[]) => list.reduce((sum, k) => sum + k.bytes, 0);
    const plainAdd = (next: Kept, now: number): boolean => {
      if (next.bytes > maxBytes || next.until <= now) return false;
      kept = kept.filter((k) => k.until > now);
      const fits = () =>
        bytesOf(ownOf(next.owner)) + next.bytes <= share.bytes &&
        ownOf(next.owner).length < share.entries &&
        bytesOf(kept) + next.bytes <= maxBytes;
      if (next.bytes <= share.bytes && bytesOf(kept) - bytesOf(ownOf(next.owner)) + next.bytes <= maxBytes)
        while (!fits()) kept.splice(kept.indexOf(ownOf(next.owner)[0]!), 1);
      if (!fits()) return false;
      kept.push(next);
      return true;
    };

    let now = 1_000_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const connection = new Connection();
      const later = deferred(connection, maxBytes, share);
      let seed = 7;
      const random = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed % n;
      };
      for (let i = 0; i < 3000; i += 1) {
        now += random(3);
        const next = {
          what: `w${i}`,
          bytes: 1 + random(25),
          until: now + 1 + random(400),
          owner: `o${random(9)}`,
        };
        const took = later.add(next.bytes, next.until, () => connection.write(next.what), next.owner);
        expect(took, `add ${i}`).toBe(plainAdd(next, now));
        expect(later.size, `size after add ${i}`).toBe(kept.length);
      }
      // Some deadlines pass before Redis answers: the rest are written, oldest first.
      now += 150;
      kept = kept.filter((k) => k.until > now);
      connection.back();
      await vi.waitFor(() => expect(connection.written).toEqual(kept.map((k) => k.what)));
      expect(later.size).toBe(0);
    } finally {
      clock.mockRestore();
    }
  });
});
