import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's built modules, which processes spawned by a test import (as another host or the CLI would). */
export const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const source = fileURLToPath(new URL('../', import.meta.url));

/**
 * Fails where a built module is older than its source: a spawned process would test old code.
 * `names` are the modules the processes import; those they import in turn (sealed-file, the
 * cipher, ...) are looked at too.
 */
export function assertBuilt(names: string[]): void {
  const seen = new Set<string>();
  const look = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const from = join(source, `${name}.ts`);
    if (statSync(join(dist, `${name}.js`)).mtimeMs < statSync(from).mtimeMs)
      throw new Error(
        `dist/${name}.js is older than its source: run pnpm -F @toolhost/credentials build first`,
      );
    for (const [, imported] of readFileSync(from, 'utf8').matchAll(/from '\.\/([\w-]+)\.js'/g))
      look(imported!);
  };
  for (const name of names) look(name);
}

/**
 * Makes the lock at `path` look abandoned a minute ago, as a holder that stopped (a pause, a
 * crash) leaves it: its holder's mark, and, unless `markOnly`, the lock's own time as well. This
 * version judges a lock by its mark; an older toolhost judged it by the time of its path alone.
 */
export function age(path: string, { markOnly = false } = {}): void {
  const past = new Date(Date.now() - 60_000);
  let inside: string[] = [];
  try {
    inside = readdirSync(path);
  } catch {
    // A plain file.
  }
  for (const name of inside) utimesSync(join(path, name), past, past);
  if (!markOnly) utimesSync(path, past, past);
}

/** A Node process running `script` (an ES module), answering over IPC; killed by `stop`. */
export function spawnScript(script: string): {
  child: ChildProcess;
  next: () => Promise<unknown>;
  stop: () => void;
} {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: unknown[] = [];
  const waiting: ((reply: unknown) => void)[] = [];
  child.on('message', (m) => {
    const w = waiting.shift();
    if (w) w(m);
    else replies.push(m);
  });
  const next = () =>
    replies.length > 0
      ? Promise.resolve(replies.shift())
      : new Promise<unknown>((resolve) => waiting.push(resolve));
  return { child, next, stop: () => child.kill('SIGKILL') };
}
