import { lstat, open, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// The disk's side of replacing the state file: where a process writes the state before renaming
// it in place, the temporary files crashed processes left, and the flush that makes a rename last.

/** Where process `pid` writes the state of `path` before renaming it over `path`. */
export const temporaryOf = (path: string, pid = process.pid) => `${path}.${pid}.tmp`;

/**
 * How old a temporary file of a running pid must be to be a leftover: no write takes minutes,
 * and a writer that stood still that long has lost its lock (stale after 30 s by default), so
 * its rename would be refused anyway. Covers a crashed process's pid taken by another since.
 */
const LEFTOVER_AFTER_MS = 10 * 60_000;

/** Whether a process of that pid runs here (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the temporary files of `path` that processes left (killed or crashed between opening
 * one and renaming it): those of a pid that no longer runs, and those not touched for
 * `LEFTOVER_AFTER_MS`; never this process's, nor a recent one of a process that runs. Called
 * under the file's lock, where no other process may be writing one: one of another pid space
 * (a shared volume), taken for gone here, has lost the lock if it writes, and its rename is
 * refused. Best effort: a leftover that cannot be removed is no reason to fail a write.
 */
export async function sweepLeftovers(path: string, now = Date.now()): Promise<void> {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(\d{1,10})\.tmp$/.exec(name.slice(prefix.length))?.[1]);
    if (!name.startsWith(prefix) || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const at = join(dirname(path), name);
    try {
      if (running(pid) && now - (await lstat(at)).mtimeMs < LEFTOVER_AFTER_MS) continue;
      await unlink(at);
    } catch {
      // Gone meanwhile, or not a file to remove.
    }
  }
}

/** What flushing a directory throws where the platform or filesystem cannot (Windows, some network ones). */
const CANNOT_SYNC_DIRECTORIES = new Set(['EISDIR', 'EINVAL', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP']);

/**
 * Flushes the directory of `path`, so that a rename in it outlives a power loss (the renamed
 * file's own data was flushed before). Skipped where directories cannot be flushed; any other
 * failure is thrown, for the log: the rename is made by then, and what it replaced is gone.
 */
export async function flushDirectoryOf(path: string): Promise<void> {
  let directory: Awaited<ReturnType<typeof open>> | undefined;
  try {
    directory = await open(dirname(path), 'r');
    await directory.sync();
  } catch (e) {
    if (!CANNOT_SYNC_DIRECTORIES.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await directory?.close();
  }
}
