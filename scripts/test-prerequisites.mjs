#!/usr/bin/env node
// Brings the system programs the tests drive, so that `pnpm test` passes on a bare machine:
// real redis-server and redis-sentinel processes (shared store, replicas; redis-cli joins a
// Cluster) and Chromium (the /connections page). They are not npm packages: the system's own
// package manager installs them (never a browser download). Runs before the test tasks in the root `test` script.
//
// TOOLHOST_TEST_NO_INSTALL=1 only checks, and fails with what to install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** What the tests need: a program on PATH (any of the names), and the package that brings it. */
const NEEDS = [
  {
    names: ['redis-server'],
    apt: 'redis-server',
    brew: ['redis'],
    for: 'the shared-store and replica tests',
  },
  { names: ['redis-sentinel'], apt: 'redis-sentinel', brew: ['redis'], for: 'the Redis Sentinel tests' },
  {
    names: ['redis-cli'],
    apt: 'redis-tools',
    brew: ['redis'],
    for: 'the Redis Cluster tests (cluster create)',
  },
  {
    names: ['chromium', 'chromium-browser'],
    env: 'CHROMIUM_PATH',
    apt: 'chromium',
    brew: ['--cask', 'chromium'],
    for: 'the /connections page tests',
  },
];

function onPath(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function present(need) {
  if (need.env && process.env[need.env] && existsSync(process.env[need.env])) return true;
  return need.names.some(onPath);
}

/** Runs an install step; its chatter is shown only when it fails. */
function run(command, args) {
  console.log(`test prerequisites: ${[command, ...args].join(' ')}`);
  const done = spawnSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (done.status !== 0) {
    process.stderr.write(`${done.stdout ?? ''}${done.stderr ?? ''}`);
    console.error(`test prerequisites: ${command} failed (exit ${done.status ?? done.signal})`);
    process.exit(1);
  }
}

/** The command that installs system packages here, as this user may run it; undefined: none. */
function installer() {
  const root = process.getuid?.() === 0;
  const sudo = !root && onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (onPath('apt-get') && (root || sudo)) {
    const as = (args) => (root ? ['apt-get', args] : ['sudo', ['apt-get', ...args]]);
    return (missing) => {
      run(...as(['update', '-qq']));
      run(...as(['install', '-y', '-qq', ...new Set(missing.map((n) => n.apt))]));
    };
  }
  if (onPath('brew')) {
    return (missing) => {
      for (const n of missing) run('brew', ['install', ...n.brew]);
    };
  }
  return undefined;
}

const missing = NEEDS.filter((n) => !present(n));
if (missing.length > 0) {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: read before turbo runs, by this script alone.
  const install = process.env.TOOLHOST_TEST_NO_INSTALL === '1' ? undefined : installer();
  if (!install) {
    console.error('The tests need programs this machine lacks:');
    for (const n of missing) console.error(`  ${n.names[0]} (Debian package ${n.apt}), for ${n.for}`);
    console.error(
      `Install them (e.g. apt-get install ${[...new Set(missing.map((n) => n.apt))].join(' ')}) and run the tests again.`,
    );
    process.exit(1);
  }
  install(missing);
  const still = missing.filter((n) => !present(n));
  if (still.length > 0) {
    console.error(`Still missing after installing: ${still.map((n) => n.names[0]).join(', ')}`);
    process.exit(1);
  }
}
