import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Entry, MemoryStateStore } from './state-store.js';

/** A lock shared by the processes writing one file (a lock file beside it). */
export interface FileStateLock {
  /** Runs `work` while no other process (nor this one) runs work under the same lock. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

export interface FileStateStoreOptions {
  /** The lock at a path (`<file>.lock`): every process writing the file must take the same one. */
  lock: (path: string) => FileStateLock;
  now?: () => number;
}

interface Waiter {
  apply(): unknown;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** What tells a file rewritten by another process apart from the one last read or written. */
function versionOf(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The memory store kept in a file (owner-only), for a host that restarts, and for hosts on one
 * data directory: every read first checks whether another process rewrote the file (one stat)
 * and reads it again if so, and every change is made under the lock on the file as it is then,
 * so that no process undoes another's registration or grant, and a code is taken once. The
 * state is written whole to a temporary file, flushed to disk and renamed over the old one, so
 * a crash leaves the old state or the new, never half of one. A change is answered once a
 * write that holds it is in place; the changes made while one write is under way share the
 * next, so a burst of sign-ins costs a few writes, not one each.
 */
export class FileStateStore extends MemoryStateStore {
  private readonly waiting: Waiter[] = [];
  private writing = false;
  private readonly lock: FileStateLock;
  private version: string | undefined;
  /** Counters counted here since the last write: kept over a reload (they are written with changes only). */
  private readonly counted = new Set<string>();

  constructor(
    private readonly path: string,
    options: FileStateStoreOptions,
  ) {
    super(options.now);
    this.lock = options.lock(`${path}.lock`);
    this.reload();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  }

  /**
   * The store in a data directory (`authorization-server.json`), and the key that seals its
   * signing key, derived from the directory's secret (every host on it opens the same).
   */
  static inDataDirectory(
    dataDir: string,
    secret: string,
    lock: FileStateStoreOptions['lock'],
  ): { store: FileStateStore; sealKey: Buffer } {
    return {
      store: new FileStateStore(join(dataDir, 'authorization-server.json'), { lock }),
      sealKey: createHash('sha256').update(`toolhost authorization server\0${secret}`).digest(),
    };
  }

  /** Reads the file again where another process rewrote it since this one last saw it. */
  private reload(): void {
    const version = versionOf(this.path);
    if (version === this.version) return;
    let saved: Record<string, Entry> = {};
    try {
      saved = JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, Entry>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const counters = [...this.counted].flatMap((key) => {
      const mine = this.live(key);
      return mine ? [[key, mine] as const] : [];
    });
    this.entries.clear();
    for (const [key, entry] of Object.entries(saved)) this.entries.set(key, entry);
    for (const [key, mine] of counters) {
      const theirs = this.live(key);
      if (!theirs || Number(theirs.value) < Number(mine.value)) this.entries.set(key, mine);
    }
    this.sweep();
    this.version = version;
  }

  override async get(key: string): Promise<string | undefined> {
    this.reload();
    return super.get(key);
  }

  override async increment(key: string, windowSeconds: number): Promise<number> {
    this.reload();
    this.counted.add(key);
    return super.increment(key, windowSeconds);
  }

  override async decrement(key: string): Promise<void> {
    this.reload();
    return super.decrement(key);
  }

  protected override change<T>(apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ apply, resolve: resolve as (result: unknown) => void, reject });
      if (!this.writing) void this.writeWhileChanged();
    });
  }

  /** Makes the changes waiting on the file as it is now, for everyone waiting, again while changes came meanwhile. */
  private async writeWhileChanged(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        const results = await this.lock.run(() => this.applyAndWrite(batch));
        for (const [i, waiter] of batch.entries()) waiter.resolve(results[i]);
      } catch (e) {
        for (const waiter of batch) waiter.reject(e);
      }
    }
    this.writing = false;
  }

  /** Under the lock: the batch's changes on the file as it is now, written if any changed a record. */
  private async applyAndWrite(batch: Waiter[]): Promise<unknown[]> {
    this.reload();
    const before = this.revision;
    const results = batch.map((waiter) => waiter.apply());
    if (this.revision === before) return results;
    this.sweep();
    this.counted.clear();
    await this.write(JSON.stringify(Object.fromEntries(this.entries)));
    this.version = versionOf(this.path);
    return results;
  }

  /** One write of the whole state, in place when it resolves. */
  protected async write(text: string): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, this.path);
  }
}
