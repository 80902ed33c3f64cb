// Child processes of the bench: spawning and tracking them, free loopback ports, and MCP
// client connections over stdio and Streamable HTTP. Every child is ended by its pid when the
// bench process exits, whichever way it exits.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// Servers run from the package folder, as `pnpm bench` would start them.
const PKG_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

// One temporary folder for the servers' logs and configs, removed with the children on exit.
export const SCRATCH_DIR = mkdtempSync(join(tmpdir(), 'toolhost-bench-logs-'));

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();

/**
 * Registers a child so that it is killed when the bench ends; returns it.
 * @template {import('node:child_process').ChildProcess} C
 * @param {C} child
 * @returns {C}
 */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function killChildren() {
  for (const c of children) c.kill('SIGKILL');
  try {
    rmSync(SCRATCH_DIR, { recursive: true, force: true });
  } catch {}
}
process.on('exit', killChildren);

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

// A minimal environment, so that the caller's shell settings do not change what is measured.
function env() {
  return { PATH: process.env.PATH ?? '', NODE_ENV: 'production' };
}

// Servers' stderr (the host's log lines) goes to a file, as a client would keep it, rather
// than into this process: reading it here would cost the measuring process time per call.
let logCount = 0;
function stderrFile() {
  logCount += 1;
  const path = join(SCRATCH_DIR, `server-${logCount}.log`);
  const fd = openSync(path, 'w');
  return {
    fd,
    tail: () => {
      try {
        return readFileSync(path, 'utf8').slice(-4000);
      } catch {
        return '';
      }
    },
    close: () => closeSync(fd),
  };
}

/**
 * Which protocol era a connection speaks. `session`: the SDK's v1 client, opening with
 * `initialize` (MCP 2025-11-25 and earlier), as the floor and the peer are measured.
 * `stateless`: the v2 client negotiating MCP 2026-07-28 (`server/discover`, then requests that
 * each stand alone); a server that does not serve that era fails the connection.
 * @typedef {'session' | 'stateless'} Era
 */

const CLIENT_INFO = { name: 'toolhost-bench', version: '0.0.0' };

/** @param {Era} era */
function clientFor(era) {
  return era === 'stateless'
    ? new ModernClient(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } })
    : new Client(CLIENT_INFO);
}

/**
 * Refuses a v2 client that fell back to the session era: its figures would not be the new era's.
 * @param {Era} era
 * @param {Client | ModernClient} client
 */
function checkEra(era, client) {
  if (era === 'stateless' && /** @type {ModernClient} */ (client).getProtocolEra() !== 'modern')
    throw new Error('the server did not answer MCP 2026-07-28 (the client fell back to initialize)');
}

/**
 * Starts `node args…` as an MCP server over stdio and connects to it. `startMs` is the time
 * from spawning to the first tools/list answer (the cold start). `cwd` is where the server
 * runs (this package's folder unless given: a host finds its plugins from there).
 * @param {string[]} args
 * @param {Era} [era]
 * @param {{ cwd?: string }} [options]
 */
export async function connectStdio(args, era = 'session', { cwd = PKG_DIR } = {}) {
  const log = stderrFile();
  const params = { command: process.execPath, args, env: env(), cwd, stderr: log.fd };
  const transport = era === 'stateless' ? new ModernStdioTransport(params) : new StdioClientTransport(params);
  const client = clientFor(era);
  const started = performance.now();
  try {
    // Each client takes its own SDK line's transport; the union type cannot say which.
    await client.connect(/** @type {any} */ (transport));
    checkEra(era, client);
    const list = await client.listTools();
    const startMs = performance.now() - started;
    log.close();
    return {
      client,
      transport,
      pid: transport.pid,
      startMs,
      list,
      close: () => client.close(),
      tail: log.tail,
    };
  } catch (e) {
    log.close();
    throw new Error(
      `${args[0]} failed to start over stdio: ${/** @type {Error} */ (e).message}\n${log.tail()}`,
    );
  }
}

/**
 * Whether something accepts TCP connections on the loopback `port`: a probe far cheaper than
 * an MCP client's failed connect, so that waiting for a server to listen takes little of the
 * machine from the server starting.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function listening(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `node argsFor(port)…` on a free port and connects over Streamable HTTP once the
 * server listens (15 s at most). `startMs` is the time from spawning to the first tools/list
 * answer (the cold start, the port probed every 5 ms). `cwd` as for connectStdio.
 * @param {(port: number) => string[]} argsFor
 * @param {Era} [era]
 * @param {{ cwd?: string }} [options]
 */
export async function connectHttp(argsFor, era = 'session', { cwd = PKG_DIR } = {}) {
  const port = await freePort();
  const log = stderrFile();
  const started = performance.now();
  const child = track(
    spawn(process.execPath, argsFor(port), { cwd, env: env(), stdio: ['ignore', 'ignore', log.fd] }),
  );
  log.close();
  const tail = log.tail;
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const deadline = Date.now() + 15_000;
  while (child.exitCode === null && Date.now() < deadline && !(await listening(port))) await sleep(5);
  for (;;) {
    const client = clientFor(era);
    try {
      await client.connect(
        // Each client takes its own SDK line's transport; the union type cannot say which.
        /** @type {any} */ (
          era === 'stateless' ? new ModernHttpTransport(url) : new StreamableHTTPClientTransport(url)
        ),
      );
      checkEra(era, client);
      const list = await client.listTools();
      return {
        client,
        pid: child.pid,
        startMs: performance.now() - started,
        list,
        tail,
        close: async () => {
          await client.close().catch(() => {});
          child.kill();
        },
      };
    } catch (e) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(
          `${argsFor(port)[0]} failed to start over HTTP: ${/** @type {Error} */ (e).message}\n${tail()}`,
        );
      await sleep(50);
    }
  }
}
