import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostCliPath } from '../src/testing/spawn-host.js';

/** A directory whose node_modules holds fixture plugins (echo: compatible; future: contract 2.0). */
export const fixtureApp = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'app');

/** A host CLI serving Streamable HTTP on a free loopback port, with `config` in a temporary file. */
export interface HttpHost {
  child: ChildProcess;
  /** The MCP endpoint, from the host's "listening" log line. */
  url: string;
  /** Everything the host wrote to stderr so far. */
  logs(): string;
}

export async function spawnHttpHost(config: unknown, env: Record<string, string>): Promise<HttpHost> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-http-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [hostCliPath(), '--config', file, 'serve', '--http', '0'], {
    cwd: fixtureApp,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      logs += c.toString();
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`host exited ${code}: ${logs}`)));
  });
  return { child, url, logs: () => logs };
}
