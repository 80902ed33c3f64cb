import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateStore } from './file-state-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileIn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-state-store-'));
  dirs.push(dir);
  return join(dir, 'nested', 'authorization-server.json');
}

/** The file store, counting its writes. */
class Watched extends FileStateStore {
  writes = 0;
  protected override async write(text: string, beforeReplace: () => void): Promise<void> {
    this.writes += 1;
    await super.write(text, beforeReplace);
  }
}

/** The store as the host opens it: another process on the same file takes the same lock file. */
const openStore = (path: string, now?: () => number) =>
  new FileStateStore(path, { lock: (at) => new FileLock(at), ...(now ? { now } : {}) });

/** Makes the lock at `path` look abandoned a minute ago, as a holder that stood still leaves it (its own time, and its holder's mark's). */
function age(path: string): void {
  const past = new Date(Date.now() - 60_000);
  let inside: string[] = [];
  try {
    inside = readdirSync(path);
  } catch {
    // A plain file.
  }
  for (const name of inside) utimesSync(join(path, name), past, past);
  utimesSync(path, past, past);
}

/** The file store, standing still before its next write while `pause` is pending. */
class Pausing extends FileStateStore {
  pause: Promise<void> | undefined;
  pausing = false;
  protected override async write(text: string, beforeReplace: () => void): Promise<void> {
    const pause = this.pause;
    this.pause = undefined;
    if (pause) {
      this.pausing = true;
      await pause;
    }
    await super.write(text, beforeReplace);
  }
}

/** The file store, with the counters it carries over a reload in view. */
class Counting extends FileStateStore {
  get countedHere(): number {
    return this.counted.size;
  }
}

const saved = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, { value: string }>;

describe('FileStateStore', () => {
  it('answers each change once the file holds it, and writes a burst of changes in a few writes', async () => {
    const path = fileIn();
    const store = new Watched(path, { lock: (at) => new FileLock(at) });
    const answered = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.set(`request:${i}`, `pending ${i}`, 600).then(() => saved(path)[`request:${i}`]?.value),
      ),
    );
    expect(answered).toEqual(Array.from({ length: 200 }, (_, i) => `pending ${i}`));
    expect(store.writes).toBeLessThanOrEqual(3);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('is read back whole by the next process, without what expired', async () => {
    const path = fileIn();
    const clock = { now: 1_000_000 };
    const first = openStore(path, () => clock.now);
    await first.set('signing-key', 'sealed');
    await first.set('code:a', 'grant', 60);
    await first.set('grant:g', 'alive', 3600);
    expect(await first.take('code:a')).toBe('grant');

    clock.now += 120_000;
    const second = openStore(path, () => clock.now);
    expect(await second.get('signing-key')).toBe('sealed');
    expect(await second.get('grant:g')).toBe('alive');
    expect(await second.get('code:a')).toBeUndefined();
  });

  it("removes crashed processes' temporary files at its next write, not a running process's recent one", async () => {
    const path = fileIn();
    const store = openStore(path);
    await store.set('client:a', 'registered');
    // A process that ran and is gone: its pid names no process now.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const leftOf = (pid: number) => `${basename(path)}.${pid}.tmp`;
    // The parent of this process runs, and so does pid 1: an hour untouched, its file is a leftover all the same.
    const [dead, running, stale] = [leftOf(gone), leftOf(process.ppid), leftOf(1)];
    const unrelated = ['other.json.1.tmp', `${basename(path)}.backup`, `${basename(path)}.x.tmp`];
    for (const name of [dead, running, stale, ...unrelated])
      writeFileSync(join(dirname(path), name), '{"half":');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dirname(path), stale), anHourAgo, anHourAgo);

    // A change that writes nothing leaves them.
    expect(await store.take('code:unknown')).toBeUndefined();
    expect(readdirSync(dirname(path))).toContain(dead);
    await store.set('client:b', 'registered');
    expect(readdirSync(dirname(path)).sort()).toEqual([basename(path), running, ...unrelated].sort());
    expect(saved(path)['client:b']?.value).toBe('registered');
  });
});

describe('FileStateStore shared by two processes', () => {
  it('keeps what each writes: a registration of one survives the other writing next', async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    await a.set('client:a', 'registered on a');
    await b.set('client:b', 'registered on b');
    await a.set('grant:a', 'granted on a');
    await b.delete('client:b');
    const next = openStore(path);
    expect(await next.get('client:a')).toBe('registered on a');
    expect(await next.get('client:b')).toBeUndefined();
    expect(await next.get('grant:a')).toBe('granted on a');
    expect(await b.get('grant:a')).toBe('granted on a');
  });

  it('loses none of two bursts written at once, and gives each code to one of them', async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    await a.set('code:x', 'grant');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => [
        a.set(`client:a${i}`, 'a', 600),
        b.set(`client:b${i}`, 'b', 600),
      ]).flat(),
    );
    const taken = await Promise.all([a.take('code:x'), b.take('code:x'), a.take('code:x'), b.take('code:x')]);
    expect(taken.filter((v) => v !== undefined)).toEqual(['grant']);
    const keys = Object.keys(saved(path));
    expect(keys).toHaveLength(100);
    expect(keys).not.toContain('code:x');
  });

  it('does not write over the process that took its lock over while it stood still', async () => {
    const path = fileIn();
    const a = new Pausing(path, { lock: (at) => new FileLock(at) });
    const b = openStore(path);
    let resume = () => {};
    a.pause = new Promise<void>((r) => (resume = r));
    const registered = a.set('client:a', 'registered on a');
    await expect.poll(() => a.pausing).toBe(true);
    // Past the lock's stale age: b takes it over and writes.
    age(`${path}.lock`);
    await b.set('client:b', 'registered on b');
    resume();
    await registered;
    expect(saved(path)['client:b']?.value).toBe('registered on b');
    expect(saved(path)['client:a']?.value).toBe('registered on a');
    expect(await b.get('client:a')).toBe('registered on a');
  });

  it('changes a record as read once: of compare-and-sets from one read on both, one writes', async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    await a.set('grant:g', 'token 1', 3600);
    const read = await b.get('grant:g');
    const written = await Promise.all(
      ['a', 'b', 'a', 'b'].map((host, i) =>
        (host === 'a' ? a : b).compareAndSet('grant:g', read, `token 2 from ${host}${i}`, 3600),
      ),
    );
    expect(written.filter(Boolean)).toHaveLength(1);
    const winner = written.indexOf(true);
    expect(saved(path)['grant:g']?.value).toBe(`token 2 from ${'abab'[winner]}${winner}`);
    // Absent expected: written only where there is none.
    expect(await b.compareAndSet('grant:g', undefined, 'other', 3600)).toBe(false);
    expect(await a.compareAndSet('grant:h', undefined, 'new', 3600)).toBe(true);
    expect(await b.get('grant:h')).toBe('new');
  });

  it('takes a compare-and-set finding the record already as it writes it for done (one sent again)', async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    await a.set('grant:g', 'token 1', 3600);
    expect(await a.compareAndSet('grant:g', 'token 1', 'token 2', 3600)).toBe(true);
    expect(await b.compareAndSet('grant:g', 'token 1', 'token 2', 3600)).toBe(true);
    expect(await b.compareAndSet('grant:g', 'token 1', 'token 3', 3600)).toBe(false);
    expect(saved(path)['grant:g']?.value).toBe('token 2');
    // Written only where there is none, whatever is there.
    expect(await b.setIfAbsent('grant:g', 'token 2', 3600)).toBe(false);
  });

  it("keeps its own counts over a reload of the other's writes", async () => {
    const path = fileIn();
    const a = openStore(path);
    const b = openStore(path);
    for (let i = 0; i < 5; i++) await a.increment('failures:addr', 300);
    await b.set('client:b', 'b');
    expect(await a.get('client:b')).toBe('b');
    expect(await a.increment('failures:addr', 300)).toBe(6);
  });

  // Kept to carry counts over a reload, the counters' keys were dropped only by a write: a store
  // that wrote nothing (refused requests from ever new addresses) kept one for every address.
  it('forgets the counters it carries once their window ended, writing nothing meanwhile', async () => {
    const path = fileIn();
    const clock = { now: Date.now() };
    const store = new Counting(path, { lock: (at) => new FileLock(at), now: () => clock.now });
    const count = (net: number, i: number) =>
      store.increment(`metadata-fetch-count:10.${net}.${i >> 8}.${i & 255}`, 60);
    for (let i = 0; i < 3000; i += 1) await count(0, i);
    for (let i = 0; i < 5; i += 1) await store.increment('metadata-fetch-count:*', 600);
    clock.now += 120_000;
    for (let i = 0; i < 3000; i += 1) await count(1, i);
    expect(store.countedHere).toBeLessThan(4000);
    // The counts still in their window are carried over another process's write.
    await openStore(path, () => clock.now).set('client:other', 'registered elsewhere');
    expect(await store.increment('metadata-fetch-count:*', 600)).toBe(6);
    expect(await count(1, 7)).toBe(2);
    expect(await count(0, 7)).toBe(1);
  });
});
