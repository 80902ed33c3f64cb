import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { FileStateStore, MemoryStateStore, type StateStore, type WriteOptions } from '../src/index.js';

/**
 * A real store (memory, or a file on disk) with two faults a test turns on: the spending
 * write of a code failing after it was made (short of replicas: its outcome unknown), and the
 * writes of one record held until a second writer's of it comes (racing replicas).
 */
export class HookedStore implements StateStore {
  /** While true, each compare-and-set of a code's record is made and then fails. */
  failSpends = false;
  /** The record whose first write waits (up to a second) for another writer's. */
  holdWritesOf?: string;
  /** The records two writers wrote at once. */
  readonly raced: string[] = [];
  private readonly waiting = new Map<string, () => void>();

  constructor(private readonly inner: StateStore) {}

  get(key: string) {
    return this.inner.get(key);
  }
  async set(key: string, value: string, ttlSeconds?: number, options?: WriteOptions) {
    await this.held(key);
    return this.inner.set(key, value, ttlSeconds, options);
  }
  async setIfAbsent(key: string, value: string, ttlSeconds?: number, options?: WriteOptions) {
    await this.held(key);
    return this.inner.setIfAbsent(key, value, ttlSeconds, options);
  }
  async compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlSeconds?: number,
    options?: WriteOptions,
  ) {
    await this.held(key);
    const written = await this.inner.compareAndSet(key, expected, value, ttlSeconds, options);
    if (this.failSpends && key.startsWith('code:')) throw new Error('no replica acknowledged the write');
    return written;
  }
  take(key: string) {
    return this.inner.take(key);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
  increment(key: string, windowSeconds: number) {
    return this.inner.increment(key, windowSeconds);
  }
  decrement(key: string) {
    return this.inner.decrement(key);
  }

  /** A write of `holdWritesOf`: the first of two writers waits for the second (or a second). */
  private async held(key: string): Promise<void> {
    if (key !== this.holdWritesOf) return;
    const first = this.waiting.get(key);
    if (first) {
      this.raced.push(key);
      this.waiting.delete(key);
      first();
      return;
    }
    await new Promise<void>((resolve) => {
      this.waiting.set(key, resolve);
      setTimeout(resolve, 1_000).unref();
    });
    this.waiting.delete(key);
  }
}

/**
 * Where the file store's tests keep their file: in memory (/dev/shm) where the machine has it.
 * Each write is flushed to disk, and the tests that make a hundred authorizations took a minute
 * on a disk other tests kept busy (CI's), against seconds; the flushes are still made here.
 */
const FILES = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/** The stores the tests run on: memory, and a file (its directory removed by `close`). */
export const STORES = {
  memory: () => ({ store: new HookedStore(new MemoryStateStore()), close: () => {} }),
  file: () => {
    const dir = mkdtempSync(join(FILES, 'as-hooked-'));
    const file = new FileStateStore(join(dir, 'authorization-server.json'), {
      lock: (at) => new FileLock(at),
    });
    return { store: new HookedStore(file), close: () => rmSync(dir, { recursive: true, force: true }) };
  },
};
