import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  CONTRACT_VERSION,
  registerToolSet,
  type TokenStore,
  type ToolDeclaration,
  type ToolPlugin,
  type TrafficPolicy,
} from '@toolhost/core';
import { expect } from 'vitest';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import type { HostConfig } from '../src/config/host-config.js';
import { containerOf, type Host } from '../src/host.js';
import { createLogger, type Logger } from '../src/logger.js';
import { HostServices, resolveService } from '../src/services.js';

/** The token store a host keeps its users' vendor tokens in (to plant or read one directly). */
export const tokenStoreOf = (host: Host): TokenStore =>
  resolveService(containerOf(host), HostServices.tokenStore) as TokenStore;

/** The lines of a JSON-lines file (an audit log), parsed. */
export function jsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The echo fixture plugin with an OAuth client whose endpoints are never reached. */
export const echoOAuthConfig: HostConfig = {
  plugins: ['toolhost-plugin-echo'],
  auth: {
    providers: {
      'echo-auth': {
        clientId: 'client-1',
        authorizeUrl: 'https://auth.invalid/authorize',
        tokenUrl: 'https://auth.invalid/token',
      },
    },
  },
};

/**
 * A directory whose node_modules holds fixture plugins (echo: compatible; future: a contract
 * newer than the host's; not-a-plugin: a package that declares none).
 */
export const fixtureApp = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'app');

/** The five tool-set plugins of this repository, by their package directories (built: the host loads `dist`). */
export const REPOSITORY_PLUGINS: readonly string[] = [
  'plugin-grid',
  'plugin-crm-events',
  'plugin-crm-marketing',
  'plugin-crm-automation',
  'plugin-cdp-pipelines',
].map((p) => join(dirname(fileURLToPath(import.meta.url)), '..', '..', p));

/** A read-only GET tool of the given name, for tests that need many tools of their own. */
export function readTool(name: string): ToolDeclaration {
  return {
    name,
    description: `Reads ${name}.`,
    method: 'GET',
    path: `/${name}`,
    auth: { kind: 'none' },
    hints: { readOnly: true },
  };
}

/**
 * Hosts spawned by this test file and still running. A test that fails before it stops its
 * host would otherwise leave it serving after the run; test/stop-spawned-hosts.ts (a setup file,
 * run again for each test file) stops them once the file's tests are done.
 */
const running = new Set<ChildProcess>();

/** Kills the hosts this file spawned that are still running. */
export function stopSpawnedHosts(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * A raw session-era `initialize` POST (no SDK client), for tests about what the endpoint does
 * with the handshake itself: `params` adds to or replaces the request's; `headers` go with it.
 */
export function postInitialize(
  url: string,
  options: { token?: string; params?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...options.headers,
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
        ...options.params,
      },
    }),
  });
}

/**
 * A 2026-07-28 `tools/call` by hand: what the SDK client would send, and what it would not (the
 * same state again, another user's, arguments of any shape). The client declares form
 * elicitation; `meta` adds to the request's `_meta` (a traceparent).
 */
export function postModernCall(
  url: string,
  call: {
    token?: string;
    name: string;
    args: unknown;
    id?: number;
    retry?: object | undefined;
    meta?: Record<string, unknown>;
  },
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': call.name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: call.id ?? 1,
      method: 'tools/call',
      params: {
        name: call.name,
        arguments: call.args,
        ...call.retry,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          ...call.meta,
        },
      },
    }),
  });
}

/** A logger whose JSON lines the test reads back as one text (`lines()`), as an operator's log. */
export function capturedLogger(level: Parameters<typeof createLogger>[0] = 'info'): {
  logger: Logger;
  lines: () => string;
  /** Forgets what was written so far, for a suite that checks each test's lines alone. */
  clear: () => void;
} {
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    logger: createLogger(level, sink),
    lines: () => text,
    clear: () => {
      text = '';
    },
  };
}

/** The operator-issued access tokens (`http.accessTokens`) of the two test users. */
export const ALICE_ACCESS_TOKEN = 'alice-access-token-0123456789';
export const BOB_ACCESS_TOKEN = 'bob-access-token-9876543210xx';

/**
 * A tool-set plugin written inline (against the contract alone), for tests that need their own
 * tools, with the traffic policy (pacing, retries) a test sets.
 */
export function inlinePlugin(
  toolSet: string,
  tools: readonly ToolDeclaration[],
  traffic?: TrafficPolicy,
): ToolPlugin {
  return {
    contractVersion: CONTRACT_VERSION,
    name: `inline-${toolSet.toLowerCase()}`,
    version: '0.0.0',
    toolSet,
    register(container, options = {}) {
      registerToolSet(container, {
        contractVersion: CONTRACT_VERSION,
        toolSet,
        plugin: { name: `inline-${toolSet.toLowerCase()}`, version: '0.0.0' },
        servers: { default: options.baseUrl ?? 'https://inline.invalid' },
        ...(traffic ? { traffic } : {}),
        tools,
      });
    },
  };
}

/** What a finished CLI run printed, and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const run = promisify(execFile);

/** Runs the real CLI to completion with only PATH and `env` set; a failing exit is a result, not a throw. */
export function cli(args: string[], env: Record<string, string> = {}, cwd = fixtureApp): Promise<CliRun> {
  const running = run(process.execPath, [hostCliPath(), ...args], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
  });
  // Nothing is typed in: a command that reads stdin (serve --stdio) sees it end.
  running.child.stdin?.end();
  return running.then(
    (r) => ({ code: 0, ...r }),
    (e: CliRun) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

export interface HttpHostProcess {
  url: string;
  child: ChildProcess;
  logs(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** Starts the real CLI with `serve --http 0` and the given config; resolves once it listens. */
export async function spawnHttpHost(
  config: HostConfig,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  /** A command the host runs under (`unshare --pid --fork …`: the host as a namespace's PID 1). */
  under: string[] = [],
): Promise<HttpHostProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-http-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const [command, ...args] = [
    ...under,
    process.execPath,
    ...nodeArgs,
    hostCliPath(),
    '--config',
    file,
    'serve',
    '--http',
    '0',
  ];
  const child = spawn(command!, args, {
    cwd: fixtureApp,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let logs = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      logs += c.toString();
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`host exited ${code}: ${logs}`)));
  });
  return { url, child, logs: () => logs, exited };
}

/** A spawned host's longest event-loop delay since the last read, in seconds (/metrics resets it). */
async function eventLoopDelayMax(host: { url: string }): Promise<number> {
  const text = await (await fetch(new URL('/metrics', host.url))).text();
  const value = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  expect(value, 'nodejs_eventloop_lag_max_seconds in /metrics').toBeDefined();
  return Number(value);
}

/** A thread's time on a CPU and waiting in a run queue for one, in ns (Linux's schedstat). */
function scheduled(pid: number): { running: number; waiting: number } | undefined {
  try {
    const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return Number.isFinite(running) && Number.isFinite(waiting)
      ? { running: running!, waiting: waiting! }
      : undefined;
  } catch {
    return undefined;
  }
}

export interface EventLoopHold {
  /** The longest event-loop delay, s, as the host's clock saw it. */
  delay: number;
  /** The share of its runnable time the host's main thread was on a CPU (1 where unknown). */
  share: number;
  /** The longest hold of the host's own: the delay less the time it waited for a CPU. */
  hold: number;
}

/**
 * Measures a spawned host's longest hold on its event loop over some work: Node's
 * monitorEventLoopDelay, read inside the host through /metrics, so that the probes' round
 * trips (test process, fake upstream) do not count. A turn also lasts while the scheduler runs
 * other processes: on a machine loaded by other work, a 50 ms turn of the host's can take a
 * second of its clock. Where Linux tells (its main thread's schedstat), the delay is scaled by
 * the share of the host's runnable time it was on a CPU, which measures the host's own work.
 */
export async function startEventLoopHold(host: HttpHostProcess): Promise<() => Promise<EventLoopHold>> {
  await eventLoopDelayMax(host);
  const pid = host.child.pid;
  const before = pid === undefined ? undefined : scheduled(pid);
  return async () => {
    const delay = await eventLoopDelayMax(host);
    const after = pid === undefined ? undefined : scheduled(pid);
    const running = before && after ? after.running - before.running : 0;
    const waiting = before && after ? after.waiting - before.waiting : 0;
    const share = running > 0 ? running / (running + waiting) : 1;
    return { delay, share, hold: delay * share };
  };
}
