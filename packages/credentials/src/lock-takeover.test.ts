import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EncryptedFileTokenStore } from './encrypted-file-token-store.js';
import { FileLock } from './file-lock.js';
import { FileRefreshLock } from './file-refresh-lock.js';
import { createLockFile, readLockFile } from './lock-files.js';
import { age, assertBuilt, dist, spawnScript } from './test-support/stale-locks.js';

// The takers and holders race from other processes, for real: they run the built modules.
beforeAll(() =>
  assertBuilt(['lock-files', 'file-lock', 'file-refresh-lock', 'encrypted-file-token-store', 'sealed-file']),
);

const running: (() => void)[] = [];
afterEach(() => {
  for (const stop of running.splice(0)) stop();
});

function spawned(script: string) {
  const process = spawnScript(script);
  running.push(process.stop);
  return process;
}

type Reply = { round: number; held?: boolean; error?: string };

/** A taker of the refresh lock in its own process: tries when told (at a given time, so all try at once), lets go when told. */
function taker(file: string) {
  return spawned(`
    const { FileRefreshLock } = await import(${JSON.stringify(join(dist, 'file-refresh-lock.js'))});
    const lock = new FileRefreshLock(${JSON.stringify(file)}, 30000);
    let release;
    process.on('message', async (m) => {
      try {
        if (m.at) {
          await new Promise((r) => setTimeout(r, Math.max(0, m.at - Date.now())));
          release = await lock.acquire('grid', 'ana');
          process.send({ round: m.round, held: release !== undefined });
        } else {
          await release?.();
          release = undefined;
          process.send({ round: m.round });
        }
      } catch (e) {
        process.send({ round: m.round, error: String(e) });
      }
    });
    process.send({ round: -1 });
  `);
}

const refreshLockOf = (file: string) =>
  `${file}.refresh-${createHash('sha256').update('grid\0ana').digest('hex').slice(0, 32)}.lock`;

describe('a stale lock that many processes take over at once', () => {
  it('ends held by exactly one of them, round after round', { timeout: 120_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lock-takeover-')), 'tokens.enc.json');
    const takers = Array.from({ length: 8 }, () => taker(file));
    for (const t of takers) expect(await t.next()).toEqual({ round: -1 });
    const holders: number[] = [];
    for (let round = 0; round < 100; round += 1) {
      // Its holder stopped a minute ago (its renewal is far off: it never runs here).
      const abandoned = await new FileRefreshLock(file, 3_600_000).acquire('grid', 'ana');
      expect(abandoned).toBeDefined();
      age(refreshLockOf(file));
      const at = Date.now() + 20;
      for (const t of takers) t.child.send({ round, at });
      const replies = (await Promise.all(takers.map((t) => t.next()))) as Reply[];
      expect(replies.filter((r) => r.error)).toEqual([]);
      holders.push(replies.filter((r) => r.held).length);
      for (const t of takers) t.child.send({ round });
      await Promise.all(takers.map((t) => t.next()));
      await abandoned!();
    }
    // Every round one holder: never two (a live lock taken away by a taker), nor none.
    expect(holders.filter((n) => n !== 1)).toEqual([]);
  });
});

/** A writer under FileLock in its own process: when told, runs its work, which finds whether another is inside too. */
function writer(path: string, inside: string) {
  return spawned(`
    import { mkdirSync, rmdirSync } from 'node:fs';
    const { FileLock } = await import(${JSON.stringify(join(dist, 'file-lock.js'))});
    const lock = new FileLock(${JSON.stringify(path)}, 60000);
    process.on('message', async (m) => {
      await new Promise((r) => setTimeout(r, Math.max(0, m.at - Date.now())));
      let together = false;
      try {
        await lock.run(async () => {
          try {
            mkdirSync(${JSON.stringify(inside)});
          } catch {
            together = true;
            return;
          }
          await new Promise((r) => setTimeout(r, 5));
          rmdirSync(${JSON.stringify(inside)});
        });
        process.send({ round: m.round, together });
      } catch (e) {
        process.send({ round: m.round, error: String(e) });
      }
    });
    process.send({ round: -1 });
  `);
}

describe('FileLock, its stale lock taken over by many processes at once', () => {
  it('lets one write at a time, round after round', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-writers-'));
    const [path, inside] = [join(dir, 'tokens.enc.json.lock'), join(dir, 'inside')];
    const writers = Array.from({ length: 6 }, () => writer(path, inside));
    for (const w of writers) expect(await w.next()).toEqual({ round: -1 });
    const rounds: (Reply & { together?: boolean })[][] = [];
    for (let round = 0; round < 40; round += 1) {
      expect(await createLockFile(path, 'a holder that stopped')).toBeTruthy();
      age(path);
      const at = Date.now() + 20;
      for (const w of writers) w.child.send({ round, at });
      rounds.push((await Promise.all(writers.map((w) => w.next()))) as Reply[]);
    }
    expect(rounds.flat().filter((r) => r.error || r.together)).toEqual([]);
  });
});

describe('a holder whose renewals fail a moment', () => {
  it('goes on renewing its lock once the file system answers again', { timeout: 60_000 }, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-renewal-')), 'tokens.enc.json.lock');
    // Its first renewals fail as on a network file system whose server restarts (EIO, then
    // ESTALE): the mark is still there, and the lock still this holder's.
    const holder = spawned(`
      import fs from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      const { createLockFile } = await import(${JSON.stringify(join(dist, 'lock-files.js'))});
      const held = await createLockFile(${JSON.stringify(path)}, 'holder');
      const utimesSync = fs.utimesSync;
      const failing = ['EIO', 'ESTALE', 'EIO'];
      fs.utimesSync = (...args) => {
        const code = failing.shift();
        if (code === undefined) return utimesSync(...args);
        process.send({ failed: code });
        throw Object.assign(new Error(code + ': utime'), { code });
      };
      syncBuiltinESMExports();
      held.keepFresh(50);
      // Alive until stopped (the renewal's timer keeps no process running).
      process.on('message', () => {});
    `);
    expect(await holder.next()).toEqual({ failed: 'EIO' });
    // Left as it is from here, the lock would look abandoned (a minute old) to every other process.
    age(path);
    await expect
      .poll(() => Date.now() - readLockFile(path)!.since, { timeout: 30_000, interval: 100 })
      .toBeLessThan(30_000);
  });
});

/** A taker in its own process that stops between making its lock (beside the lock's path) and renaming it onto the path. */
function stoppedTaker(path: string) {
  return spawned(`
    import fsp from 'node:fs/promises';
    import { syncBuiltinESMExports } from 'node:module';
    const { createLockFile } = await import(${JSON.stringify(join(dist, 'lock-files.js'))});
    const rename = fsp.rename;
    let go;
    fsp.rename = async (from, to) => {
      process.send({ making: from });
      await new Promise((r) => (go = r));
      return rename(from, to);
    };
    syncBuiltinESMExports();
    process.on('message', () => go());
    try {
      process.send({ held: (await createLockFile(${JSON.stringify(path)}, String(process.pid))) !== undefined });
    } catch (e) {
      process.send({ error: String(e) });
    }
  `);
}

describe('a lock being made when its taker stopped', () => {
  it('is swept away once stale, and its taker, if it resumes, is told it did not take the lock', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-unmade-'));
    const path = join(dir, 'tokens.enc.json.lock');
    const [killed, stood, slow] = [stoppedTaker(path), stoppedTaker(path), stoppedTaker(path)];
    const making = async (taker: ReturnType<typeof stoppedTaker>) =>
      ((await taker.next()) as { making: string }).making;
    const [left, stoodMaking, slowMaking] = [await making(killed), await making(stood), await making(slow)];
    killed.stop();
    await new Promise((resolve) => killed.child.once('exit', resolve));
    // The killed one's and the one standing still are older than the lock's stale age; the slow one's is not.
    age(left);
    age(stoodMaking);
    await new FileLock(path).run(async () => {});
    expect(existsSync(left)).toBe(false);
    expect(existsSync(stoodMaking)).toBe(false);
    expect(existsSync(slowMaking)).toBe(true);
    stood.child.send('go');
    expect(await stood.next()).toEqual({ held: false });
    slow.child.send('go');
    expect(await slow.next()).toEqual({ held: true });
    expect(readdirSync(dir)).toEqual(['tokens.enc.json.lock']);
  });
});

const KEY = 'a-long-enough-test-key';
const token = (n: string) => ({ accessToken: `at-${n}`, refreshToken: `rt-${n}`, scopes: ['a'] });

describe('a token file writer that stood still past its lock', () => {
  it('does not write over what the process that took the lock over wrote', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-paused-'));
    const file = join(dir, 'tokens.enc.json');
    const here = new EncryptedFileTokenStore(file, KEY);
    await here.set('grid', 'ana', token('a0'));
    const [inside, go] = [join(dir, 'inside'), join(dir, 'go')];
    // Another process replaces ana's token, and stands still under the lock (its whole event
    // loop, as in a long pause) while it compares the stored token with the one it replaces.
    const other = spawned(`
      import { existsSync, writeFileSync } from 'node:fs';
      const { EncryptedFileTokenStore } = await import(${JSON.stringify(join(dist, 'encrypted-file-token-store.js'))});
      const store = new EncryptedFileTokenStore(${JSON.stringify(file)}, ${JSON.stringify(KEY)});
      const nap = new Int32Array(new SharedArrayBuffer(4));
      let stood = false;
      const over = {
        ...${JSON.stringify(token('a0'))},
        get accessToken() {
          if (!stood) {
            stood = true;
            writeFileSync(${JSON.stringify(inside)}, '');
            while (!existsSync(${JSON.stringify(go)})) Atomics.wait(nap, 0, 0, 5);
          }
          return 'at-a0';
        },
      };
      const replaced = await store.replace('grid', 'ana', ${JSON.stringify(token('a1'))}, over);
      process.send({ replaced });
    `);
    await expect.poll(() => existsSync(inside), { timeout: 30_000 }).toBe(true);
    // Meanwhile its lock goes stale, and this process takes it over and writes.
    age(`${file}.lock`);
    await here.set('grid', 'bo', token('b'));
    writeFileSync(go, '');
    expect(await other.next()).toEqual({ replaced: true });
    const after = new EncryptedFileTokenStore(file, KEY);
    expect(await after.get('grid', 'bo')).toEqual(token('b'));
    expect(await after.get('grid', 'ana')).toEqual(token('a1'));
  });
});
