import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The root `test` script runs this first, so that the README's test command passes on a bare
// machine: it must find what is missing and bring it with the system's package manager.
const script = fileURLToPath(new URL('../../../scripts/test-prerequisites.mjs', import.meta.url));

/** A PATH holding only node and sh (and what a test adds), as on a machine without the programs. */
function barePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-bare-path-'));
  symlinkSync(process.execPath, join(dir, 'node'));
  symlinkSync('/bin/sh', join(dir, 'sh'));
  return dir;
}

function runScript(path: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    env: { PATH: path, HOME: tmpdir(), ...env },
  });
}

describe('the test prerequisites', () => {
  it('names each missing program and its package when it may not install', () => {
    const run = runScript(barePath(), { TOOLHOST_TEST_NO_INSTALL: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('redis-server (Debian package redis-server)');
    expect(run.stderr).toContain('redis-sentinel (Debian package redis-sentinel)');
    expect(run.stderr).toContain('redis-cli (Debian package redis-tools)');
    expect(run.stderr).toContain('chromium (Debian package chromium)');
    expect(run.stderr).toContain('apt-get install redis-server redis-sentinel redis-tools chromium');
  });

  it('takes CHROMIUM_PATH for Chromium', () => {
    const dir = barePath();
    const run = runScript(dir, { TOOLHOST_TEST_NO_INSTALL: '1', CHROMIUM_PATH: process.execPath });
    expect(run.stderr).not.toContain('chromium (Debian package');
  });

  it.skipIf(process.getuid?.() !== 0)('installs what is missing with apt-get, as root', () => {
    const dir = barePath();
    const log = join(dir, 'apt-get.log');
    // A stand-in apt-get: records its arguments and, on install, puts the programs on PATH.
    writeFileSync(
      join(dir, 'apt-get'),
      `#!/bin/sh
echo "$@" >> ${log}
if [ "$1" = install ]; then
  for p in redis-server redis-sentinel redis-cli chromium; do printf '#!/bin/sh\\n' > ${dir}/$p; /bin/chmod +x ${dir}/$p; done
fi
`,
    );
    chmodSync(join(dir, 'apt-get'), 0o755);
    const run = runScript(dir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
      'update -qq',
      'install -y -qq redis-server redis-sentinel redis-tools chromium',
    ]);
  });

  it('does nothing when everything is there', () => {
    const dir = barePath();
    for (const p of ['redis-server', 'redis-sentinel', 'redis-cli', 'chromium']) {
      writeFileSync(join(dir, p), '#!/bin/sh\n');
      chmodSync(join(dir, p), 0o755);
    }
    const run = runScript(dir, { TOOLHOST_TEST_NO_INSTALL: '1' });
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).toBe('');
  });
});
