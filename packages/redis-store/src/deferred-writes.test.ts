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

const deferred = (connection: Connection, maxBytes = 100) =>
  new DeferredWrites(connection as unknown as SharedRedis, maxBytes);

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
});
