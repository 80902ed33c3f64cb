import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/*
 * A lock shared by processes through the file system: a directory at the lock's path holding
 * one mark, a file named by a random word its holder drew, holding what the holder says of
 * itself (its pid); the lock is held while the mark is there, and the mark's time is when its
 * holder last said it was alive.
 *
 * Why a directory and a named mark. A stale lock must be taken away by its takers, and a file
 * system has no "delete this path if it still holds what I judged": whatever is judged, what is
 * deleted by its path may already be another holder's. Moving the lock aside first and putting
 * it back when it was not the stale one does not mend that: with three takers, one puts back
 * while another has made a new lock meanwhile, the put-back fails and the lock it moved (a live
 * one) is lost, so two hold the lock. Here a taker deletes the stale holder's mark by its name,
 * which no other holder ever has: of many takers that judged it, one deletes it and the others
 * find nothing, and none can delete a live holder's mark, since that one bears another name.
 * The lock is taken by renaming a directory made beforehand with the taker's mark in it onto the
 * lock's path, which succeeds only where no lock directory with a mark is there (one that is
 * empty, let go of, is replaced or first removed: rmdir removes only an empty one), so there is
 * one holder at a time. A holder lets go the same way, deleting its own mark by its name, so a
 * holder that outlived its lock cannot end its successor's either. The mark is written before
 * the directory takes the lock's path, so no lock is ever without its holder named (one a full
 * disk refused leaves no lock at all, where a lock left empty would be waited on until stale).
 *
 * Why the holder checks before it writes. Judging a lock stale by its age takes for dead a
 * holder that only stood still (a long GC pause, SIGSTOP, a laptop asleep): when it resumes, it
 * no longer holds the lock, and what it writes would go over its successor's work. So a holder
 * looks for its mark (`stillHeld`) just before its write becomes visible, and writes nothing if
 * the mark is gone. Its mark's time is renewed while it holds the lock (`keepFresh`), so that a
 * holder that is only slow is not judged stale; one that stands still renews nothing. What is
 * left is the instant between that look and the write (a process stopped exactly there): no
 * file system lock without the storage's own fencing can close it; the look and the rename that
 * publishes a write are made back to back, synchronously, to keep it an instant.
 *
 * A lock of the older form (a plain file, left by an earlier toolhost) is judged by its age and
 * content as before, and taken away by unlinking it, which cannot remove a lock directory; only
 * an older toolhost still running beside this one could have made a new plain lock meanwhile.
 * Such a toolhost judges a lock directory by the directory's own time, renewed with the mark, so
 * it waits for a live holder; one whose holder stopped it moves aside to `<lock>.<hex>.stale`
 * and cannot delete (it deletes files only): such a directory is swept with the unmade locks.
 * One this process cannot look into (another user's) is judged by its age but never taken away:
 * which holder it names is unknown, so removing it could remove a live one.
 */

/** A lock as found: what its holder wrote, when it was last touched, and the name of its mark. */
export interface LockFile {
  content: string;
  since: number;
  /** Undefined for a lock of the older form (`plain`), or one this process cannot look into. */
  marker?: string;
  plain?: boolean;
}

/** Errors from a rename onto the lock's path that mean a lock is there (Windows answers EPERM). */
const TAKEN = new Set(['EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR', 'EPERM', 'EACCES']);

/** A lock this process holds: its mark is in the lock directory until it lets go. */
export class HeldLock {
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    readonly path: string,
    private readonly marker: string,
  ) {}

  private get mark(): string {
    return join(this.path, this.marker);
  }

  /** Whether the lock is still this holder's: false once a taker judged it stale and took it away. */
  stillHeld(): boolean {
    return existsSync(this.mark);
  }

  /**
   * Renews the mark's time every `everyMs` until let go (synchronously: a busy thread pool must
   * not make a live holder look stale), and the lock directory's own: an older toolhost on the
   * same data directory judges a lock by its path's time alone, and would take a live one for
   * abandoned.
   */
  keepFresh(everyMs: number): void {
    this.renewal = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(this.mark, now, now);
        utimesSync(this.path, now, now);
      } catch (e) {
        // The mark gone: the lock was taken over. Anything else (EIO, ESTALE: a network file
        // system a moment away) may pass, and a holder that gave up renewing would lose its lock.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') clearInterval(this.renewal);
      }
    }, everyMs);
    this.renewal.unref();
  }

  /** Lets go: deletes its own mark (by its name: never a successor's), then the directory if empty. */
  async release(): Promise<void> {
    clearInterval(this.renewal);
    await unlink(this.mark).catch(() => {});
    await rmdir(this.path).catch(() => {});
  }
}

/**
 * Takes the lock at `path`, its mark holding `content`; undefined where another holds it. A lock
 * is made beside its path first, then renamed onto it; one left there longer than `staleMs` was
 * being made by a process that stopped in between, and is swept away.
 */
export async function createLockFile(
  path: string,
  content: string,
  staleMs = 30_000,
): Promise<HeldLock | undefined> {
  await sweepUnmade(path, staleMs);
  const marker = randomBytes(9).toString('hex');
  const making = `${path}.${marker}.new`;
  await mkdir(making, { mode: 0o700 });
  try {
    const written = await writeFile(join(making, marker), content, { mode: 0o600, flag: 'wx' }).then(
      () => true,
      // Swept away (see sweepUnmade) while this process stood still.
      (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : Promise.reject(e)),
    );
    return written && (await renamedOnto(making, path)) ? new HeldLock(path, marker) : undefined;
  } finally {
    // Gone where it became the lock; else only this process ever knew its name.
    await rm(making, { recursive: true, force: true });
  }
}

/** When this process last swept beside each lock path: leftovers are rare, a sweep reads the whole directory. */
const sweptAt = new Map<string, number>();

/**
 * Takes away the locks being made beside `path` (`<path>.<marker>.new`) untouched for `staleMs`:
 * their makers were killed before renaming them onto the path, and nobody else knows their names.
 * One that only stood still that long finds its own gone, and is told it took no lock.
 * Also the locks an older toolhost moved aside (`<path>.<hex>.stale`): it moved only a lock it
 * judged stale, and put back only a plain file it found live, which is younger than `staleMs`.
 */
async function sweepUnmade(path: string, staleMs: number): Promise<void> {
  if (Date.now() - (sweptAt.get(path) ?? 0) < staleMs) return;
  sweptAt.set(path, Date.now());
  const base = basename(path);
  const unmade = (name: string) =>
    name.startsWith(`${base}.`) &&
    /^(?:[0-9a-f]{18}\.new|[0-9a-f]{12}\.stale)$/.test(name.slice(base.length + 1));
  const names = await readdir(dirname(path)).catch(() => []);
  for (const name of names.filter(unmade)) {
    const at = join(dirname(path), name);
    const since = (await stat(at).catch(() => undefined))?.mtimeMs ?? Date.now();
    if (Date.now() - since > staleMs) await rm(at, { recursive: true, force: true });
  }
}

async function renamedOnto(from: string, path: string, again = true): Promise<boolean> {
  try {
    await rename(from, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    // ENOENT: what this process was making was swept away, it having stood still that long.
    if (code === 'ENOENT') return false;
    if (!TAKEN.has(code)) throw e;
  }
  // A lock let go of may leave its directory, empty, which rename replaces on POSIX only.
  return again && (await succeeds(rmdir(path))) && renamedOnto(from, path, false);
}

const succeeds = (step: Promise<unknown>): Promise<boolean> =>
  step.then(
    () => true,
    () => false,
  );

/** The lock at `path`, undefined where there is none (or it was let go of, even while read). */
export function readLockFile(path: string): LockFile | undefined {
  let names: string[];
  try {
    names = readdirSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Nothing there, or a link leading nowhere: that is there all the same (sinceOf's lstat),
    // and a rename onto it fails, so it is waited out by its age rather than taken for no lock.
    if (code === 'ENOENT') return sinceOf(path, { content: '' });
    if (code === 'ENOTDIR') return readPlain(path);
    return sinceOf(path, { content: '' });
  }
  // None: a lock let go of, its directory left.
  const marker = names[0];
  if (marker === undefined) return undefined;
  try {
    const since = statSync(join(path, marker)).mtimeMs;
    return { content: readFileSync(join(path, marker), 'utf8'), since, marker };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : sinceOf(path, { content: '' });
  }
}

function readPlain(path: string): LockFile | undefined {
  let content = '';
  try {
    content = readFileSync(path, 'utf8');
  } catch {
    // Another user's: judged by its age.
  }
  return sinceOf(path, { content, plain: true });
}

function sinceOf(path: string, lock: Omit<LockFile, 'since'>): LockFile | undefined {
  try {
    // lstat: a link that leads nowhere readable is judged as what it is, not lost sight of.
    return { ...lock, since: lstatSync(path).mtimeMs };
  } catch {
    return undefined;
  }
}

/**
 * Takes away the lock `seen` (judged stale): its mark, by its name, so that only that holder's
 * lock can go, whatever happened since it was read. Whether it is gone (here or by another
 * taker); false where it cannot be taken away (one this process cannot look into, or may not
 * change): the caller then waits.
 */
export async function removeStaleLockFile(path: string, seen: LockFile): Promise<boolean> {
  // unlink removes no directory, so a plain lock can only be the one seen or one an older
  // toolhost made since; rmdir removes only an empty directory, a lock let go of.
  const gone = (at: string, remove: (at: string) => Promise<void>) =>
    remove(at).then(
      () => true,
      (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
    );
  if (seen.marker === undefined) return gone(path, seen.plain ? unlink : rmdir);
  const removed = await gone(join(path, seen.marker), unlink);
  await rmdir(path).catch(() => {});
  return removed;
}

/**
 * Where a pid means something: this machine's name and this process's pid namespace (Linux), so
 * that a pid written by another container (another namespace, even with the same host name) or
 * by another machine on a shared volume is not looked up here. A pid is unique within it.
 */
export const PID_SPACE = (() => {
  try {
    return `${hostname()}/${readlinkSync('/proc/self/ns/pid')}`.replace(/\s/g, '_');
  } catch {
    return hostname().replace(/\s/g, '_');
  }
})();
