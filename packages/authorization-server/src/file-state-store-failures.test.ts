import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ToolError } from '@toolhost/core';
import { FileLock } from '@toolhost/credentials';
import { afterEach, describe, expect, it } from 'vitest';
import { fillDisk, StallingFileStore } from '../test/stalling-file-store.js';
import { FileStateStore } from './file-state-store.js';

// The file store when its file cannot be written or read, made so on a real filesystem: the
// write then fails in the kernel, at the step it would on a full disk or a read-only volume.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Opened {
  dir: string;
  path: string;
  store: FileStateStore;
  logged: { level: 'warn' | 'info'; fields: Record<string, unknown>; message: string }[];
}

/** A store in a directory of its own, as the host opens it, its log kept; `waitMs` for its lock. */
function open(waitMs?: number, Store: typeof FileStateStore = FileStateStore): Opened {
  const dir = mkdtempSync(join(tmpdir(), 'file-state-failures-'));
  dirs.push(dir);
  const path = join(dir, 'authorization-server.json');
  const logged: Opened['logged'] = [];
  const store = new Store(path, {
    lock: (at) => new FileLock(at, waitMs),
    log: {
      warn: (fields, message) => logged.push({ level: 'warn', fields, message }),
      info: (fields, message) => logged.push({ level: 'info', fields, message }),
    },
  });
  return { dir, path, store, logged };
}

/** Where this process writes the state before renaming it in place. */
const temporaryOf = (path: string) => `${path}.${process.pid}.tmp`;

/** What the store answered a failed call: the host answers `store_unavailable` 503 temporarily_unavailable. */
async function failure(call: Promise<unknown>): Promise<ToolError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ToolError.isInstance(error), String(error)).toBe(true);
  const tool = error as ToolError;
  expect(tool.info).toMatchObject({ code: 'store_unavailable', retryable: true });
  // The client is told nothing of the server's disk.
  expect(tool.message).not.toContain('/');
  return tool;
}

/**
 * Creating files in the store's directory made to fail: the directory read-only; where modes
 * do not stop this process (root), its temporary file's name taken by a directory instead.
 */
function stopCreating(dir: string, path: string): () => void {
  chmodSync(dir, 0o500);
  try {
    writeFileSync(join(dir, 'probe'), '');
    rmSync(join(dir, 'probe'));
  } catch {
    return () => chmodSync(dir, 0o700);
  }
  chmodSync(dir, 0o700);
  mkdirSync(temporaryOf(path));
  return () => rmdirSync(temporaryOf(path));
}

/** Another host holding the lock on `path` until released (its lock file names a live process of this pid space). */
async function holdLock(
  path: string,
): Promise<{ lockPath: string; holder: () => string[]; release: () => Promise<void> }> {
  const lockPath = `${path}.lock`;
  let release = () => {};
  const held = new FileLock(lockPath).run(() => new Promise<void>((resolve) => (release = resolve)));
  // Its holder's mark: the one file in the lock's directory.
  const holder = () => readdirSync(lockPath).map((mark) => readFileSync(join(lockPath, mark), 'utf8'));
  await expect.poll(() => existsSync(lockPath) && holder()[0]).toMatch(/^\d+ /);
  return {
    lockPath,
    holder,
    release: async () => {
      release();
      await held;
    },
  };
}

/** The store, its directory moved away just after its next write replaced the file: the flush after fails. */
class MovedAfterWrite extends FileStateStore {
  moveNext = false;
  private readonly dir: string;
  constructor(path: string, options: ConstructorParameters<typeof FileStateStore>[1]) {
    super(path, options);
    this.dir = dirname(path);
  }
  protected override async write(text: string, beforeReplace: () => void): Promise<void> {
    await super.write(text, beforeReplace);
    if (!this.moveNext) return;
    this.moveNext = false;
    renameSync(this.dir, `${this.dir}-away`);
  }
}

describe('FileStateStore when its file cannot be written', () => {
  it('makes none of the changes a failed write held, leaves the file and no temporary file, and logs once', async () => {
    const { dir, path, store, logged } = open();
    await store.set('code:a', 'grant a', 60);
    await store.set('client:c', 'registered');
    const before = readFileSync(path);

    // A code taken (a token request), a registration, a revocation: each write failed.
    const changes = [
      () => store.take('code:a'),
      () => store.set('client:d', 'new'),
      () => store.delete('client:c'),
    ];
    for (const change of changes) {
      fillDisk(path);
      await failure(change());
      expect(readFileSync(path)).toEqual(before);
      expect(readdirSync(dir)).toEqual(['authorization-server.json']);
      // Not made in memory either: the code is there for the client's retry.
      expect(await store.get('code:a')).toBe('grant a');
      expect(await store.get('client:c')).toBe('registered');
      expect(await store.get('client:d')).toBeUndefined();
    }
    expect(logged).toEqual([
      {
        level: 'warn',
        fields: { file: path, step: 'write', code: 'ENOSPC' },
        message: expect.stringContaining(`cannot write its state file ${path} (ENOSPC`),
      },
    ]);

    // The disk has room again: the retry takes the code, once.
    expect(await store.take('code:a')).toBe('grant a');
    expect(await store.take('code:a')).toBeUndefined();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ 'client:c': { value: 'registered' } });
    expect(logged.at(-1)).toMatchObject({ level: 'info', fields: { file: path, failures: 3 } });
  });

  it('fails a change while files cannot be made in its directory, and makes it once they can', async () => {
    const { dir, path, store, logged } = open();
    await store.set('client:c', 'registered');
    const before = readFileSync(path);
    const restore = stopCreating(dir, path);
    try {
      await failure(store.set('client:d', 'new'));
      await failure(store.set('client:d', 'new'));
      expect(readFileSync(path)).toEqual(before);
    } finally {
      restore();
    }
    expect(logged.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(logged[0]!.message).toContain(path);
    await store.set('client:d', 'new');
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8'))).sort()).toEqual(['client:c', 'client:d']);
    expect(readdirSync(dir).sort()).toEqual(['authorization-server.json']);
  });

  it('fails a change when another holder keeps the lock past its wait, and leaves that lock alone', async () => {
    const { path, store, logged } = open(300);
    await store.set('refresh:r', 'grant g');
    const other = await holdLock(path);
    const theirs = other.holder();
    try {
      await failure(store.take('refresh:r'));
      expect(other.holder()).toEqual(theirs);
      expect(await store.get('refresh:r')).toBe('grant g');
    } finally {
      await other.release();
    }
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: { file: path, step: 'lock' },
        message: expect.stringContaining(`${other.lockPath} has been held by process ${process.pid}`),
      }),
    ]);
    expect(await store.take('refresh:r')).toBe('grant g');
  });

  it('tells the log the lock is taken again at the next change, though it writes nothing', async () => {
    const { path, store, logged } = open(300);
    await store.set('client:c', 'registered');
    const other = await holdLock(path);
    try {
      await failure(store.take('code:unknown'));
    } finally {
      await other.release();
    }
    // A read takes no lock: it tells nothing of it.
    expect(await store.get('client:c')).toBe('registered');
    expect(logged.map((l) => l.level)).toEqual(['warn']);
    // A code presented that is not there (nothing to write), under the lock taken again.
    expect(await store.take('code:unknown')).toBeUndefined();
    expect(await store.take('code:unknown')).toBeUndefined();
    expect(logged).toEqual([
      expect.objectContaining({ level: 'warn', fields: { file: path, step: 'lock' } }),
      {
        level: 'info',
        fields: { file: path, failures: 1 },
        message: expect.stringContaining(`takes the lock on its state file ${path} again`),
      },
    ]);
  });

  it('tells the log a full disk has room again only once a change is written', async () => {
    const { path, store, logged } = open();
    await store.set('client:c', 'registered');
    fillDisk(path);
    await failure(store.set('client:d', 'new'));
    // Under the lock, nothing to write: whether the disk has room is not known yet.
    expect(await store.take('code:unknown')).toBeUndefined();
    expect(logged.map((l) => l.level)).toEqual(['warn']);
    await store.set('client:d', 'new');
    expect(logged.at(-1)).toEqual({
      level: 'info',
      fields: { file: path, failures: 1 },
      message: expect.stringContaining(`writes its state file ${path} again`),
    });
  });

  it('lets no read meanwhile find a change whose write then fails', async () => {
    const { path, store } = open(undefined, StallingFileStore);
    const stalling = store as StallingFileStore;
    await store.set('code:a', 'grant a', 60);
    await store.set('grant:g', 'token 1', 3600);
    for (const spend of [
      () => store.take('code:a'),
      () => store.compareAndSet('grant:g', 'token 1', 'token 2'),
    ]) {
      const go = stalling.stallNext();
      fillDisk(path);
      const spending = spend();
      await expect.poll(() => stalling.stalled).toBe(true);
      // The code, or the refresh token, presented again while its spending is being written.
      expect(await store.get('code:a')).toBe('grant a');
      expect(await store.get('grant:g')).toBe('token 1');
      go();
      await failure(spending);
      expect(await store.get('code:a')).toBe('grant a');
      expect(await store.get('grant:g')).toBe('token 1');
    }
    expect(await store.take('code:a')).toBe('grant a');
    expect(await store.compareAndSet('grant:g', 'token 1', 'token 2')).toBe(true);
  });

  it('makes a change whose directory cannot be flushed after its rename, and logs that once', async () => {
    const { dir, path, store, logged } = open(undefined, MovedAfterWrite);
    const moving = store as MovedAfterWrite;
    await store.set('client:c', 'registered');
    for (const client of ['client:d', 'client:e']) {
      moving.moveNext = true;
      // Answered as made: every process reading the file finds it made.
      await store.set(client, 'new');
      renameSync(`${dir}-away`, dir);
      expect(JSON.parse(readFileSync(path, 'utf8'))[client]).toEqual({ value: 'new' });
    }
    expect(logged).toEqual([
      {
        level: 'warn',
        fields: { file: path, step: 'flush', code: 'ENOENT' },
        message: expect.stringContaining('a power loss may undo the latest of them'),
      },
    ]);
    await store.set('client:f', 'new');
    expect(logged.at(-1)).toMatchObject({ level: 'info', fields: { file: path, failures: 2 } });
    expect(await store.get('client:e')).toBe('new');
  });
});

describe('FileStateStore when its file cannot be read', () => {
  it('fails reads while its directory is gone, rather than answer an empty state, and reads it again after', async () => {
    const { dir, store } = open();
    await store.set('client:c', 'registered');
    renameSync(dir, `${dir}-away`);
    try {
      await failure(store.get('client:c'));
      await failure(store.increment('authorize-count:*', 600));
      await failure(store.set('client:d', 'new'));
    } finally {
      renameSync(`${dir}-away`, dir);
    }
    expect(await store.get('client:c')).toBe('registered');
  });

  it('tells the log it reads the file again though it came back unchanged, and so each outage', async () => {
    const { dir, path, store, logged } = open();
    await store.set('client:c', 'registered');
    for (let outage = 0; outage < 2; outage++) {
      renameSync(dir, `${dir}-away`);
      try {
        await failure(store.get('client:c'));
        await failure(store.get('client:c'));
      } finally {
        renameSync(`${dir}-away`, dir);
      }
      // The same file, not rewritten meanwhile.
      expect(await store.get('client:c')).toBe('registered');
    }
    const outage = [
      { level: 'warn', fields: { file: path, step: 'read', code: 'ENOENT' }, message: expect.any(String) },
      {
        level: 'info',
        fields: { file: path, failures: 2 },
        message: expect.stringContaining(`reads its state file ${path} again`),
      },
    ];
    expect(logged).toEqual([...outage, ...outage]);
  });

  it('fails reads while something else stands in its place, and reads it again after', async () => {
    const { path, store } = open();
    await store.set('client:c', 'registered');
    // Rewritten meanwhile by another host, then its name taken by a directory.
    const other = new FileStateStore(path, { lock: (at) => new FileLock(at) });
    await other.set('client:o', 'theirs');
    renameSync(path, `${path}.aside`);
    mkdirSync(path);
    try {
      await failure(store.get('client:c'));
    } finally {
      rmdirSync(path);
      renameSync(`${path}.aside`, path);
    }
    expect(await store.get('client:o')).toBe('theirs');
    expect(lstatSync(path).isFile()).toBe(true);
  });
});
