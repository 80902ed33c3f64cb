import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
  // Readable by another user, for the runs as one.
  chmodSync(dir, 0o755);
  symlinkSync(process.execPath, join(dir, 'node'));
  symlinkSync('/bin/sh', join(dir, 'sh'));
  return dir;
}

/** A stand-in for a system command: records its arguments in `<name>.log` and succeeds. */
function standIn(dir: string, name: string, body = ''): string {
  const log = join(dir, `${name}.log`);
  writeFileSync(join(dir, name), `#!/bin/sh\nprintf '%s\\n' "$*" >> ${log}\n${body}`);
  chmodSync(join(dir, name), 0o755);
  return log;
}

/** A stand-in apt-get whose install puts the programs on PATH. */
function fakeAptGet(dir: string): string {
  return standIn(
    dir,
    'apt-get',
    `if [ "$1" = install ]; then
  for p in redis-server redis-sentinel redis-cli chromium; do printf '#!/bin/sh\\n' > ${dir}/$p; /bin/chmod +x ${dir}/$p; done
fi
`,
  );
}

const logged = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

const INSTALL = 'install -y -qq --no-install-recommends redis-server redis-sentinel redis-tools chromium';

function runScript(path: string, env: Record<string, string> = {}, options: { asUser?: number } = {}) {
  const command = [process.execPath, script];
  const [file, ...args]: string[] =
    options.asUser === undefined
      ? command
      : [SETPRIV!, `--reuid=${options.asUser}`, `--regid=${options.asUser}`, '--clear-groups', ...command];
  return spawnSync(file!, args, { encoding: 'utf8', env: { PATH: path, HOME: tmpdir(), ...env } });
}

/** The script on a terminal (a pseudo-terminal from util-linux `script`), typing `answer`. */
function runOnTerminal(path: string, answer: string) {
  return spawnSync('script', ['-qec', `env -i PATH=${path} HOME=${tmpdir()} node ${script}`, '/dev/null'], {
    encoding: 'utf8',
    input: `${answer}\n`,
  });
}

const asRoot = process.getuid?.() === 0;
/** util-linux's setpriv, to run the script as another user (found before PATH is made bare). */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

describe('the test prerequisites', () => {
  it('names each missing program and its package when it may not install', () => {
    const run = runScript(barePath(), { TOOLHOST_TEST_NO_INSTALL: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('redis-server (Debian package redis-server)');
    expect(run.stderr).toContain('redis-sentinel (Debian package redis-sentinel)');
    expect(run.stderr).toContain('redis-cli (Debian package redis-tools)');
    expect(run.stderr).toContain('chromium (Debian package chromium)');
    expect(run.stderr).toContain(
      'apt-get install --no-install-recommends redis-server redis-sentinel redis-tools chromium',
    );
  });

  it('takes CHROMIUM_PATH for Chromium', () => {
    const dir = barePath();
    const run = runScript(dir, { TOOLHOST_TEST_NO_INSTALL: '1', CHROMIUM_PATH: process.execPath });
    expect(run.stderr).not.toContain('chromium (Debian package');
  });

  it.skipIf(!asRoot)('installs nothing without consent, off a terminal, even as root', () => {
    const dir = barePath();
    const log = fakeAptGet(dir);
    const run = runScript(dir);
    expect(run.status).toBe(1);
    expect(logged(log)).toEqual([]);
    expect(run.stderr).toContain('TOOLHOST_TEST_INSTALL=1 pnpm test');
  });

  it.skipIf(!asRoot)(
    'installs with apt-get, without Recommends, given TOOLHOST_TEST_INSTALL=1 or CI=true',
    () => {
      const consents: Record<string, string>[] = [{ TOOLHOST_TEST_INSTALL: '1' }, { CI: 'true' }];
      for (const consent of consents) {
        const dir = barePath();
        const log = fakeAptGet(dir);
        const run = runScript(dir, consent);
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        expect(run.stdout).toContain(`apt-get ${INSTALL}`);
        expect(logged(log)).toEqual(['update -qq', INSTALL]);
      }
    },
  );

  it.skipIf(!asRoot)('lets TOOLHOST_TEST_INSTALL=0 refuse even under CI=true', () => {
    const dir = barePath();
    const log = fakeAptGet(dir);
    const run = runScript(dir, { CI: 'true', TOOLHOST_TEST_INSTALL: '0' });
    expect(run.status).toBe(1);
    expect(logged(log)).toEqual([]);
  });

  it.skipIf(!asRoot)('asks on a terminal, and installs only on yes', () => {
    const refused = barePath();
    const refusedLog = fakeAptGet(refused);
    const no = runOnTerminal(refused, 'n');
    expect(no.stdout).toContain(`apt-get ${INSTALL}`);
    expect(no.stdout).toContain('Run them now? [y/N]');
    expect(no.status).toBe(1);
    expect(logged(refusedLog)).toEqual([]);
    const agreed = barePath();
    const agreedLog = fakeAptGet(agreed);
    const yes = runOnTerminal(agreed, 'y');
    expect(yes.status).toBe(0);
    expect(logged(agreedLog)).toEqual(['update -qq', INSTALL]);
  });

  it.skipIf(!asRoot || !SETPRIV)(
    'as another user, never runs sudo without consent (not even sudo -n true)',
    () => {
      const dir = barePath();
      // The stand-ins, run as that user, write their logs and programs here.
      chmodSync(dir, 0o777);
      fakeAptGet(dir);
      const sudo = standIn(dir, 'sudo', 'shift; exec "$@"\n');
      const refused = runScript(dir, {}, { asUser: 65534 });
      expect(refused.status).toBe(1);
      expect(logged(sudo)).toEqual([]);
      const agreed = runScript(dir, { TOOLHOST_TEST_INSTALL: '1' }, { asUser: 65534 });
      expect(agreed.stdout).toContain(`sudo -n apt-get ${INSTALL}`);
      expect(logged(sudo)).toEqual(['-n apt-get update -qq', `-n apt-get ${INSTALL}`]);
    },
  );

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
