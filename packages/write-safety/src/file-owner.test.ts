import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// Claimants race from other processes, for real: they run the built module, as hosts would.
const built = fileURLToPath(new URL('../dist/file-owner.js', import.meta.url));
beforeAll(() => {
  if (statSync(built).mtimeMs < statSync(fileURLToPath(new URL('./file-owner.ts', import.meta.url))).mtimeMs)
    throw new Error(
      'dist/file-owner.js is older than its source: run pnpm -F @toolhost/write-safety build first',
    );
});

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** A process claiming `path` (after `before`, its own set-up), answering over IPC; alive until killed, as a host. */
function claimant(path: string, before = '') {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `${before}
      const { FileOwner } = await import(${JSON.stringify(built)});
      process.on('message', () => {});
      process.send({ claim: await new FileOwner(${JSON.stringify(path)}).claim() });`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  running.push(child);
  const replies: unknown[] = [];
  const waiting: ((reply: unknown) => void)[] = [];
  child.on('message', (m) => (waiting.shift() ?? ((r) => replies.push(r)))(m));
  const next = () =>
    replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((resolve) => waiting.push(resolve));
  return { child, next };
}

/** Makes the claim's lock look abandoned a minute ago (its holder stood still: no renewal). */
function age(lock: string): void {
  const past = new Date(Date.now() - 60_000);
  for (const name of readdirSync(lock)) utimesSync(join(lock, name), past, past);
  utimesSync(lock, past, past);
}

describe('a claimant that stood still past its claim lock while another claimed the file', () => {
  it("leaves the owner its socket, and refuses later claimants in the owner's name", {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'file-owner-'));
    const path = join(dir, 'write-records.enc.jsonl.owner');
    const go = join(dir, 'go');
    // It stands still (its whole event loop, as in a long pause) once it has found no owner.
    const paused = claimant(
      path,
      `import fs from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      const readFileSync = fs.readFileSync;
      let stood = false;
      fs.readFileSync = (...args) => {
        try {
          return readFileSync(...args);
        } finally {
          if (args[0] === ${JSON.stringify(path)} && !stood) {
            stood = true;
            process.send('inside');
            const nap = new Int32Array(new SharedArrayBuffer(4));
            while (!fs.existsSync(${JSON.stringify(go)})) Atomics.wait(nap, 0, 0, 5);
          }
        }
      };
      syncBuiltinESMExports();`,
    );
    expect(await paused.next()).toBe('inside');
    age(`${path}.lock`);
    const owner = claimant(path);
    expect(await owner.next()).toEqual({ claim: { held: true } });
    writeFileSync(go, '');
    expect(await paused.next()).toEqual({ claim: { held: false, pid: owner.child.pid } });
    // The one that stood still goes (its claim refused, it may well stop): the owner lives on.
    paused.child.kill('SIGKILL');
    await new Promise((resolve) => paused.child.once('exit', resolve));
    const later = claimant(path);
    expect(await later.next()).toEqual({ claim: { held: false, pid: owner.child.pid } });
    // Nothing of the refused claims is left beside the file: only the owner's file and socket.
    expect(readdirSync(dir).sort()).toEqual([
      'go',
      'write-records.enc.jsonl.owner',
      'write-records.enc.jsonl.owner.sock',
    ]);
  });
});
