import { open } from 'node:fs/promises';
import { dirname } from 'node:path';

// The disk's side of replacing the state file: where a process writes the state before renaming
// it in place, and the flush that makes a rename last.

/** Where process `pid` writes the state of `path` before renaming it over `path`. */
export const temporaryOf = (path: string, pid = process.pid) => `${path}.${pid}.tmp`;

/** What flushing a directory throws where the platform or filesystem does not (Windows, some network filesystems). */
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
