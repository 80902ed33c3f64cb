import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenStoreError } from './credentials-error.js';
import { FileLock } from './file-lock.js';
import { createLockFile, PID_SPACE, readLockFile, removeStaleLockFile } from './lock-files.js';
import { age } from './test-support/stale-locks.js';

const lockPath = () => join(mkdtempSync(join(tmpdir(), 'lock-files-')), 'tokens.json.lock');

/** A pid no process of this machine has (above Linux's pid_max limit). */
const NO_SUCH_PID = 4_194_305;

/** A lock left by a holder that wrote `content`, in this version's form or an older toolhost's (a plain file). */
async function leftBy(path: string, content: string, plain: boolean): Promise<void> {
  if (plain) writeFileSync(path, content);
  else expect(await createLockFile(path, content)).toBeDefined();
}

describe('taking over a stale lock', () => {
  it('lets one of two takers that judged it at once hold the lock', async () => {
    const path = lockPath();
    await createLockFile(path, 'stale holder');
    // Both found "stale holder" stale; the first takes it away and makes its own.
    const seen = readLockFile(path)!;
    expect(await removeStaleLockFile(path, seen)).toBe(true);
    expect(await createLockFile(path, 'first')).toBeDefined();
    // The second, acting on what it judged, must not take away the first's new lock.
    expect(await removeStaleLockFile(path, seen)).toBe(true);
    expect(await createLockFile(path, 'second')).toBeUndefined();
    expect(readLockFile(path)?.content).toBe('first');
  });

  it('leaves a successor its lock when the holder that outlived its own lets go', async () => {
    const path = lockPath();
    const late = (await createLockFile(path, 'late holder'))!;
    await removeStaleLockFile(path, readLockFile(path)!);
    expect(late.stillHeld()).toBe(false);
    const successor = (await createLockFile(path, 'successor'))!;
    await late.release();
    expect(readLockFile(path)?.content).toBe('successor');
    expect(successor.stillHeld()).toBe(true);
    await successor.release();
    // Nothing left beside it: no lock, no directory the lock was made in.
    expect(readdirSync(dirname(path))).toEqual([]);
  });

  it("takes an older toolhost's plain lock file away only as a file, never a lock made since", async () => {
    const path = lockPath();
    writeFileSync(path, 'older toolhost');
    const seen = readLockFile(path)!;
    expect(seen).toMatchObject({ content: 'older toolhost', plain: true });
    expect(await createLockFile(path, 'new')).toBeUndefined();
    expect(await removeStaleLockFile(path, seen)).toBe(true);
    expect(await createLockFile(path, 'first')).toBeDefined();
    await removeStaleLockFile(path, seen);
    expect(readLockFile(path)?.content).toBe('first');
  });

  it('takes a lock let go of (its directory left empty) at once', async () => {
    const path = lockPath();
    mkdirSync(path);
    expect(await createLockFile(path, 'next')).toBeDefined();
    expect(readLockFile(path)?.content).toBe('next');
  });
});

describe('a lock held and renewed', () => {
  /** When a toolhost before lock directories takes a lock to have been renewed: its path's own time. */
  const olderToolhostSince = (path: string) => statSync(path).mtimeMs;

  it("keeps the lock directory's own time fresh too, by which an older toolhost judges it", async () => {
    const path = lockPath();
    const held = (await createLockFile(path, 'holder'))!;
    held.keepFresh(50);
    // Held for a minute so far: an older toolhost beside it must not take it for abandoned.
    age(path);
    await expect.poll(() => Date.now() - readLockFile(path)!.since, { timeout: 10_000 }).toBeLessThan(30_000);
    expect(Date.now() - olderToolhostSince(path)).toBeLessThan(30_000);
    await held.release();
    expect(readdirSync(dirname(path))).toEqual([]);
  });
});

describe('a lock an older toolhost moved aside', () => {
  it('is swept once stale; a lock it is moving aside now is left to it', async () => {
    const path = lockPath();
    // An older toolhost took over this version's lock whose holder stopped (in another process:
    // this one would have swept beside the path just now): it renamed the lock directory aside
    // and could not delete it (it deletes files only).
    const left = `${path}.0123456789ab.stale`;
    mkdirSync(left);
    writeFileSync(join(left, '0123456789abcdef01'), 'stopped holder');
    age(left);
    // Another older toolhost is moving aside a plain lock file it may yet put back.
    const moving = `${path}.ba9876543210.stale`;
    writeFileSync(moving, 'live holder');
    await new FileLock(path).run(async () => {});
    expect(readdirSync(dirname(path)).sort()).toEqual([basename(moving)]);
  });
});

describe('FileLock', () => {
  /** Runs under the lock, answering what the lock says of its holder then. */
  const run = (path: string) => new FileLock(path, 300).run(async () => readLockFile(path)?.content);

  it('waits out a holder of another pid space (another container or machine) until it is stale', async () => {
    // Its pid names nothing here, even under this host name and where it is this process's own
    // (pid 1 in two containers of one host name).
    for (const plain of [false, true])
      for (const pid of [NO_SUCH_PID, process.pid]) {
        const path = lockPath();
        await leftBy(path, `${pid} ${hostname()}/pid:[1] 0123`, plain);
        await expect(run(path)).rejects.toBeInstanceOf(TokenStoreError);
        expect(readLockFile(path)?.content).toBe(`${pid} ${hostname()}/pid:[1] 0123`);
        age(path);
        expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
      }
  });

  it("judges a lock by its holder's mark, whatever the time of its directory", async () => {
    const path = lockPath();
    // Of another pid space: only its age tells.
    await leftBy(path, `${NO_SUCH_PID} ${hostname()}/pid:[1] 0123`, false);
    age(path, { markOnly: true });
    expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
  });

  it('takes over at once from a dead process of its pid space, and from this process in an earlier life', async () => {
    for (const plain of [false, true])
      for (const pid of [NO_SUCH_PID, process.pid]) {
        const path = lockPath();
        await leftBy(path, `${pid} ${PID_SPACE} 0123`, plain);
        expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
      }
  });

  it('is not taken from another lock of this process that holds it', async () => {
    const path = lockPath();
    let release = () => {};
    const held = new FileLock(path).run(() => new Promise<void>((r) => (release = r)));
    await expect.poll(() => readLockFile(path)?.content.startsWith(`${process.pid} `)).toBe(true);
    await expect(run(path)).rejects.toBeInstanceOf(TokenStoreError);
    release();
    await held;
    expect(await run(path)).toMatch(new RegExp(`^${process.pid} `));
    expect(existsSync(path)).toBe(false);
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

  it('waits out a lock it cannot look into, even stale, without spinning: it cannot tell whose it is', async () => {
    const path = lockPath();
    // A link to itself stands for another user's lock directory: nothing in it can be read.
    symlinkSync(path, path);
    const started = Date.now();
    await expect(run(path)).rejects.toThrow(/held by another process/);
    expect(Date.now() - started).toBeLessThan(3_000);
    const past = new Date(Date.now() - 60_000);
    lutimesSync(path, past, past);
    await expect(run(path)).rejects.toThrow(/held by another process for 60 s/);
  });

  it('waits out a link at its path that leads nowhere, by the age of the link, and says how to remove the lock', async () => {
    const path = lockPath();
    symlinkSync(join(dirname(path), 'nowhere'), path);
    const past = new Date(Date.now() - 60_000);
    lutimesSync(path, past, past);
    await expect(run(path)).rejects.toThrow(
      `${path} has been held by another process for 60 s; try again, or, if that process is not a toolhost, remove the lock directory: rm -r ${path}`,
    );
  });

  it('tells a holder that stood still past its lock, before it writes, and runs its work again under the lock', async () => {
    const path = lockPath();
    const written: string[] = [];
    let resume = () => {};
    const stillness = new Promise<void>((r) => (resume = r));
    let runs = 0;
    const paused = new FileLock(path).run(async (assertHeld) => {
      runs += 1;
      if (runs === 1) await stillness;
      assertHeld();
      written.push(`paused holder, run ${runs}`);
    });
    await expect.poll(() => runs).toBe(1);
    // Its lock, not renewed meanwhile, goes stale: another takes it over and writes.
    age(path);
    await new FileLock(path).run(async (assertHeld) => {
      assertHeld();
      written.push('successor');
    });
    resume();
    await paused;
    expect(written).toEqual(['successor', 'paused holder, run 2']);
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
      // Neither the lock nor the directory it was being made in is left.
      expect(readdirSync(dirname(path))).toEqual([]);
      expect(await createLockFile(path, 'holder')).toBeDefined();
      expect(readLockFile(path)?.content).toBe('holder');
    },
  );
});
