import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { type FileHandle, link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';

/** A lock file as found: what its holder wrote, and when it was last touched. */
export interface LockFile {
  content: string;
  since: number;
}

/**
 * Makes the lock file holding `content`, exclusively; false where one exists. One made but not
 * written (a full disk) is taken away again: left empty, it names no holder, so every process
 * would wait for it to go stale, well after the disk has room again.
 */
export async function createLockFile(path: string, content: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
  } catch (e) {
    await unlink(path).catch(() => {});
    throw e;
  }
  return true;
}

/**
 * The lock file at `path`, undefined where there is none. One this process may not read (another
 * user's, on a shared volume) is there all the same, of unknown content: judged by its age.
 */
export function readLockFile(path: string): LockFile | undefined {
  let since: number;
  try {
    since = statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  try {
    return { content: readFileSync(path, 'utf8'), since };
  } catch {
    return { content: '', since };
  }
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

/**
 * Takes away the lock file judged stale when it held `seen`. Deleting it by its path would let
 * two takers that judged it at once each delete it, the second deleting the first's new lock,
 * so both would hold it: it is moved aside instead, which only one of them can do, and put back
 * if what was moved is no longer the stale one.
 */
export async function removeStaleLockFile(path: string, seen: string): Promise<void> {
  const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  const moved = await readFile(aside, 'utf8').catch(() => seen);
  if (moved !== seen) await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}

/** Deletes the lock file if it still holds `mine`: a holder that outlived its lock must not end its successor's. */
export async function removeOwnLockFile(path: string, mine: string): Promise<void> {
  if (readLockFile(path)?.content === mine) await unlink(path).catch(() => {});
}
