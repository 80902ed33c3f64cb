// A real redis-server (Debian's `redis-server`) on a free loopback port, its files in a
// temporary folder, for the store-cost phase; the same way the host's tests start one
// (packages/host/test/redis-server.ts), which the bench cannot import (tests are not built).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { freePort, SCRATCH_DIR, track } from './processes.mjs';

/** @param {number} port */
function answersPing(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (/** @type {boolean} */ ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/**
 * Starts redis-server without persistence; undefined when it is not installed.
 * @param {string[]} [extraArgs] more arguments (`--replicaof 127.0.0.1 <port>`)
 */
export async function startRedis(extraArgs = []) {
  let binary;
  try {
    binary = execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
  const port = await freePort();
  const dir = mkdtempSync(join(SCRATCH_DIR, 'redis-'));
  const child = track(
    spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        ...extraArgs,
      ],
      { stdio: 'ignore' },
    ),
  );
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url: `redis://127.0.0.1:${port}`, port, close: () => child.kill() };
}
