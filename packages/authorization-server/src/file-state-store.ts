import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ToolError } from '@toolhost/core';
import { FileStoreFailures, type StateStoreLog } from './file-state-failures.js';
import { flushDirectoryOf, sweepLeftovers, temporaryOf } from './state-file-disk.js';
import { type Entry, MemoryStateStore } from './state-store.js';

/** A lock shared by the processes writing one file (a lock file beside it). */
export interface FileStateLock {
  /**
   * Runs `work` while no other process (nor this one) runs work under the same lock. `work`
   * calls `assertHeld` just before its write replaces the file: it throws where another process
   * took the lock over meanwhile (this one stood still past the lock's stale age), and the lock
   * may then run `work` again, under the lock taken anew.
   */
  run<T>(work: (assertHeld: () => void) => Promise<T>): Promise<T>;
}

export interface FileStateStoreOptions {
  /** The lock at a path (`<file>.lock`): every process writing the file must take the same one. */
  lock: (path: string) => FileStateLock;
  now?: () => number;
  /** Told when the file cannot be read or written (once while each failure lasts), and when it can again. */
  log?: StateStoreLog;
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
 * state is written whole to a temporary file, flushed to disk and renamed over the old one (its
 * directory flushed after, for the rename to outlive a power loss), so a crash leaves the old
 * state or the new, never half of one; a temporary file a crashed process left is removed by
 * the next write. A change is answered once a write that holds it is in place; the changes
 * made while one write is under way share the next, so a burst of sign-ins costs a few
 * writes, not one each.
 *
 * A change whose write fails (a full disk, a directory made read-only, the lock held past its
 * wait by another host) is not made: it is made on a copy of the state, which memory becomes
 * only once the file holds it. The temporary file goes and the file stays as it was, so a
 * refresh token taken by a refresh answered 503 is there for its retry, and was there all
 * along for any presentation of it meanwhile. Its callers, and a read of a file that cannot be
 * read, are answered `store_unavailable` (`FileStoreFailures`), which the host answers 503
 * temporarily_unavailable.
 */
export class FileStateStore extends MemoryStateStore {
  private readonly waiting: Waiter[] = [];
  private writing = false;
  private readonly lock: FileStateLock;
  private version: string | undefined;
  /** Counters counted here since the last write: kept over a reload (they are written with changes only). */
  protected readonly counted = new Set<string>();
  /** Past this many, `counted` is rid of counters whose window ended (then set to twice what is left). */
  private countedBound = 1000;
  private readonly failures: FileStoreFailures;

  constructor(
    private readonly path: string,
    options: FileStateStoreOptions,
  ) {
    super(options.now);
    this.lock = options.lock(`${path}.lock`);
    this.failures = new FileStoreFailures(path, options.log);
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
    log?: StateStoreLog,
  ): { store: FileStateStore; sealKey: Buffer } {
    return {
      store: new FileStateStore(join(dataDir, 'authorization-server.json'), { lock, log }),
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
      // Gone with its directory (a volume unmounted, a directory moved away), the file is not a
      // state with nothing in it: every client would be told its registration and tokens are unknown.
      if (!existsSync(dirname(this.path)))
        throw Object.assign(new Error(`its directory ${dirname(this.path)} is gone`), { code: 'ENOENT' });
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

  /**
   * `reload` for a request: a file that cannot be read is the store unavailable, never an empty
   * state. Read (or found as last read), it ends a failure to read it: a file back unchanged
   * after an outage is not read again, yet the log must hear that the outage ended.
   */
  private current(): void {
    try {
      this.reload();
    } catch (e) {
      throw this.failures.failed('read', e);
    }
    this.failures.succeeded('read');
  }

  override async get(key: string): Promise<string | undefined> {
    this.current();
    return super.get(key);
  }

  override async increment(key: string, windowSeconds: number): Promise<number> {
    this.current();
    this.counted.add(key);
    // A write forgets the counters it holds; a server that writes nothing (a flood of refused
    // requests, each address its own counter) kept every address it ever counted.
    if (this.counted.size > this.countedBound) {
      for (const k of this.counted) if (k !== key && this.live(k) === undefined) this.counted.delete(k);
      this.countedBound = Math.max(1000, 2 * this.counted.size);
    }
    return super.increment(key, windowSeconds);
  }

  override async decrement(key: string): Promise<void> {
    this.current();
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
        // A lock that passes no check (an older FileLock) leaves the write unchecked, as before.
        const results = await this.lock.run((assertHeld = () => {}) => this.applyAndWrite(batch, assertHeld));
        for (const [i, waiter] of batch.entries()) waiter.resolve(results[i]);
      } catch (e) {
        // Not failed by the work itself (which says what failed): by taking the lock.
        const failure = ToolError.isInstance(e) ? e : this.failures.failed('lock', e);
        for (const waiter of batch) waiter.reject(failure);
      }
    }
    this.writing = false;
  }

  /**
   * Under the lock: the batch's changes on the file as it is now, made on a copy of the state
   * and written if any changed a record; memory becomes that copy once the file holds it. A read
   * meanwhile (another presentation of the code or refresh token the batch spends, while the
   * lock is awaited or the file written) finds the state the file holds: finding the change, and
   * the write failing, it would act on a change never made (a token found spent, and its grant
   * revoked as reused, while the presentation that spent it is answered 503). A write refused
   * because the lock was taken over meanwhile fails as the lock says, so that the lock runs the
   * batch again, on the file as read again (what the other process wrote).
   */
  private async applyAndWrite(batch: Waiter[], assertHeld: () => void): Promise<unknown[]> {
    this.failures.succeeded('lock');
    this.current();
    const before = this.revision;
    const { results, draft } = this.drafted(() => batch.map((waiter) => waiter.apply()));
    if (this.revision === before) return results;
    await sweepLeftovers(this.path);
    let lost: { error: unknown } | undefined;
    try {
      await this.write(JSON.stringify(Object.fromEntries(draft)), () => {
        try {
          assertHeld();
        } catch (error) {
          lost = { error };
          throw error;
        }
      });
    } catch (e) {
      // Memory and the file are as they were: none of the batch's changes is made.
      throw lost ? lost.error : this.failures.failed('write', e);
    }
    this.commit(draft);
    this.failures.succeeded('write');
    await this.flush();
    return results;
  }

  /** Runs `apply` on a copy of the state, memory left as it was: its results, and the copy. */
  private drafted<T>(apply: () => T): { results: T; draft: Map<string, Entry> } {
    const committed = this.entries;
    const draft = new Map(committed);
    this.entries = draft;
    try {
      const results = apply();
      this.sweep();
      return { results, draft };
    } finally {
      this.entries = committed;
    }
  }

  /**
   * Memory becomes the state just written, with the counts made meanwhile (counted on memory as
   * it was while the file was written; a count unchanged since went into the file).
   */
  private commit(written: Map<string, Entry>): void {
    for (const key of this.counted) {
      const mine = this.entries.get(key);
      if (mine === written.get(key)) this.counted.delete(key);
      else if (mine) written.set(key, mine);
      else written.delete(key);
    }
    this.entries = written;
    this.version = versionOf(this.path);
  }

  /**
   * The rename made to last (its directory flushed). A failure is logged, not answered: the
   * change is made by then, in the file every process reads, and a client told it was not would
   * present its code or refresh token again, to find it spent.
   */
  private async flush(): Promise<void> {
    try {
      await flushDirectoryOf(this.path);
      this.failures.succeeded('flush');
    } catch (e) {
      this.failures.failed('flush', e);
    }
  }

  /**
   * One write of the whole state, in place when it resolves. One that fails leaves the file as
   * it was and takes its temporary file away: each failure leaving one would fill what a full
   * disk has left (a process's later writes reuse its name, a restarted one's do not).
   * `beforeReplace` is called just before the file is replaced, and leaves it as it was by throwing.
   */
  protected async write(text: string, beforeReplace: () => void): Promise<void> {
    const temporary = temporaryOf(this.path);
    try {
      const file = await open(temporary, 'w', 0o600);
      try {
        await file.writeFile(text);
        await file.sync();
      } finally {
        await file.close();
      }
      // Back to back, synchronously: nothing may run between the check and the file's replacing.
      beforeReplace();
      renameSync(temporary, this.path);
    } catch (e) {
      await unlink(temporary).catch(() => {});
      throw e;
    }
  }
}
