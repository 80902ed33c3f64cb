import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenStoreError } from './credentials-error.js';
import { FileLock } from './file-lock.js';
import { createLockFile, PID_SPACE, removeOwnLockFile, removeStaleLockFile } from './lock-files.js';

const lockPath = () => join(mkdtempSync(join(tmpdir(), 'lock-files-')), 'tokens.json.lock');

/** A pid no process of this machine has (above Linux's pid_max limit). */
const NO_SUCH_PID = 4_194_305;

describe('taking over a stale lock file', () => {
  it('lets one of two takers that judged it at once hold the lock', async () => {
    const path = lockPath();
    writeFileSync(path, 'stale holder');
    // Both found "stale holder" stale; the first takes it away and makes its own.
    await removeStaleLockFile(path, 'stale holder');
    expect(await createLockFile(path, 'first')).toBe(true);
    // The second, acting on what it judged, must not take away the first's new lock.
    await removeStaleLockFile(path, 'stale holder');
    expect(await createLockFile(path, 'second')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('first');
  });

  it('leaves a successor its lock when the holder that outlived its own lets go', async () => {
    const path = lockPath();
    writeFileSync(path, 'successor');
    await removeOwnLockFile(path, 'late holder');
    expect(readFileSync(path, 'utf8')).toBe('successor');
  });
});

describe('FileLock', () => {
  const run = (path: string) => new FileLock(path, 300).run(async () => readFileSync(path, 'utf8'));

  it('waits out a holder of another pid space (another container or machine) until it is stale', async () => {
    // Its pid names nothing here, even under this host name and where it is this process's own
    // (pid 1 in two containers of one host name).
    for (const pid of [NO_SUCH_PID, process.pid]) {
      const path = lockPath();
      writeFileSync(path, `${pid} ${hostname()}/pid:[1] 0123`);
      await expect(run(path)).rejects.toBeInstanceOf(TokenStoreError);
      expect(readFileSync(path, 'utf8')).toBe(`${pid} ${hostname()}/pid:[1] 0123`);
    }
  });

  it('takes over at once from a dead process of its pid space, and from this process in an earlier life', async () => {
    for (const pid of [NO_SUCH_PID, process.pid]) {
      const path = lockPath();
      writeFileSync(path, `${pid} ${PID_SPACE} 0123`);
      expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
    }
  });

  it('is not taken from another lock of this process that holds it', async () => {
    const path = lockPath();
    let release = () => {};
    const held = new FileLock(path).run(() => new Promise<void>((r) => (release = r)));
    await expect.poll(() => readFileSync(path, 'utf8').startsWith(`${process.pid} `)).toBe(true);
    await expect(run(path)).rejects.toBeInstanceOf(TokenStoreError);
    release();
    await held;
    expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
  });

  it('keeps two locks of this process on one file to one holder at a time', async () => {
    const path = lockPath();
    const locks = [new FileLock(path), new FileLock(path), new FileLock(path)];
    let inside = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++inside);
      await new Promise((r) => setImmediate(r));
      inside -= 1;
    };
    await Promise.all(Array.from({ length: 600 }, (_, i) => locks[i % 3]!.run(work)));
    expect(most).toBe(1);
  });

  it('waits out a lock file it cannot read, then takes it over once stale, without spinning', async () => {
    const path = lockPath();
    // A directory stands for a file of another user: there, unreadable.
    mkdirSync(path);
    const started = Date.now();
    await expect(run(path)).rejects.toThrow(/held by another process/);
    expect(Date.now() - started).toBeLessThan(3_000);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
  });
});

/** This process's limit on the size of a file it writes (RLIMIT_FSIZE), through prlimit(1); undefined without it. */
function fileSizeLimit(): string | undefined {
  try {
    return execFileSync('prlimit', [
      '--pid',
      String(process.pid),
      '--fsize',
      '--output',
      'SOFT',
      '--noheadings',
    ])
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

const setFileSizeLimit = (soft: string) =>
  execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${soft}:`]);

describe('a lock file made on a full disk', () => {
  const limit = fileSizeLimit();

  it.skipIf(limit === undefined)(
    'is taken away again, rather than left empty for every process to wait on',
    async () => {
      const path = lockPath();
      // No file of this process may grow (a real write failing in the kernel, EFBIG): the lock
      // file is made, its content is not, as when a disk fills. Set back before anything else runs.
      setFileSizeLimit('0');
      let made: unknown;
      try {
        made = await createLockFile(path, 'holder').catch((e: unknown) => e);
      } finally {
        setFileSizeLimit(limit!);
      }
      expect(made).toMatchObject({ code: 'EFBIG' });
      expect(existsSync(path)).toBe(false);
      expect(await createLockFile(path, 'holder')).toBe(true);
      expect(readFileSync(path, 'utf8')).toBe('holder');
    },
  );
});
