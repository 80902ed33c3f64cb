#!/usr/bin/env node
// Brings the system programs the tests drive, so that `pnpm test` passes on a bare machine:
// real redis-server and redis-sentinel processes (shared store, replicas; redis-cli joins a
// Cluster) and Chromium (the /connections page). They are not npm packages: the system's own
// package manager installs them (never a browser download). Runs before the test tasks in the
// root `test` script.
//
// Installing system packages changes the machine, so it happens only with consent: asked on a
// terminal, or given in advance with TOOLHOST_TEST_INSTALL=1 (or CI=true, a CI machine being
// there to be changed). TOOLHOST_TEST_INSTALL=0 (or TOOLHOST_TEST_NO_INSTALL=1) only checks.
// Without consent it names what to install and stops. The exact command is printed before it
// runs; sudo is used only after consent, and never merely because it would not ask a password.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';

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

// biome-ignore-start lint/suspicious/noUndeclaredEnvVars: read before turbo runs, by this script alone.
const env = process.env;
const truthy = (v) => ['1', 'true', 'yes'].includes((v ?? '').toLowerCase());
const falsy = (v) => ['0', 'false', 'no'].includes((v ?? '').toLowerCase());
/** 'yes' (consent given), 'no' (never install), or 'ask'. */
const consent =
  falsy(env.TOOLHOST_TEST_INSTALL) || truthy(env.TOOLHOST_TEST_NO_INSTALL)
    ? 'no'
    : truthy(env.TOOLHOST_TEST_INSTALL) || truthy(env.CI)
      ? 'yes'
      : 'ask';
// biome-ignore-end lint/suspicious/noUndeclaredEnvVars: read before turbo runs, by this script alone.

function onPath(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function present(need) {
  if (need.env && env[need.env] && existsSync(env[need.env])) return true;
  return need.names.some(onPath);
}

/** Runs an install step; its chatter is shown only when it fails. sudo may ask on a terminal. */
function run([command, ...args]) {
  console.log(`test prerequisites: ${[command, ...args].join(' ')}`);
  const done = spawnSync(command, args, {
    encoding: 'utf8',
    stdio: ['inherit', 'pipe', 'pipe'],
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (done.status !== 0) {
    process.stderr.write(`${done.stdout ?? ''}${done.stderr ?? ''}`);
    console.error(`test prerequisites: ${command} failed (exit ${done.status ?? done.signal})`);
    process.exit(1);
  }
}

/**
 * The commands that would install `missing` here, or undefined where this machine has no
 * package manager this script knows. apt-get without Recommends: only the programs and what
 * they cannot run without (no desktop services, no other default browser).
 */
function installCommands(missing, interactive) {
  const root = process.getuid?.() === 0;
  if (onPath('apt-get') && (root || onPath('sudo'))) {
    // Not on a terminal, sudo must fail rather than wait for a password nobody can type.
    const as = (args) =>
      root ? ['apt-get', ...args] : ['sudo', ...(interactive ? [] : ['-n']), 'apt-get', ...args];
    return [
      as(['update', '-qq']),
      as(['install', '-y', '-qq', '--no-install-recommends', ...new Set(missing.map((n) => n.apt))]),
    ];
  }
  if (onPath('brew')) {
    const formulas = new Map(missing.map((n) => [n.brew.join(' '), n.brew]));
    return [...formulas.values()].map((f) => ['brew', 'install', ...f]);
  }
  return undefined;
}

function explain(missing) {
  console.error('The tests need programs this machine lacks:');
  for (const n of missing) console.error(`  ${n.names[0]} (Debian package ${n.apt}), for ${n.for}`);
}

async function ask(commands) {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    console.error('test prerequisites: these commands would install them:');
    for (const c of commands) console.error(`  ${c.join(' ')}`);
    const answer = await rl.question('Run them now? [y/N] ');
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const missing = NEEDS.filter((n) => !present(n));
if (missing.length > 0) {
  const interactive = consent === 'ask' && Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const commands = consent === 'no' ? undefined : installCommands(missing, interactive);
  const agreed = commands && (consent === 'yes' || (interactive && (await ask(commands))));
  if (!agreed) {
    explain(missing);
    const apt = [...new Set(missing.map((n) => n.apt))].join(' ');
    console.error(
      `Install them (e.g. apt-get install --no-install-recommends ${apt}) and run the tests again` +
        (commands && consent !== 'no'
          ? ', or let the tests install them: TOOLHOST_TEST_INSTALL=1 pnpm test.'
          : '.'),
    );
    process.exit(1);
  }
  for (const command of commands) run(command);
  const still = missing.filter((n) => !present(n));
  if (still.length > 0) {
    console.error(`Still missing after installing: ${still.map((n) => n.names[0]).join(', ')}`);
    process.exit(1);
  }
}
