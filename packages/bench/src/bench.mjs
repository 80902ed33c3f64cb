// pnpm bench [-- --quick] [--catalog-only] [--save-baseline]
//
// Measures, in one run on one machine, against a loopback upstream with a fixed small answer:
// per-call latency and server CPU of the host (stdio, Streamable HTTP, in-process embedding)
// against a direct axios call, a bare MCP SDK server (the floor) and a generic
// OpenAPI-to-MCP peer; cold start; resident memory; and the tools/list catalog's size in
// bytes and o200k_base tokens. Prints tables and writes results/latest.json and latest.md.
// Loopback only (127.0.0.1); stops by itself. Timing is reported, never asserted.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import axios from 'axios';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { load, median, processCpuMs, processRssMb, round, summarize } from './measure.mjs';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const CATALOG_ONLY = argv.includes('--catalog-only');
const SAVE_BASELINE = argv.includes('--save-baseline');

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG_DIR = dirname(HERE);
const RESULTS = join(PKG_DIR, 'results');
const require = createRequire(import.meta.url);
const HOST_CLI = join(dirname(require.resolve('@toolhost/host/package.json')), 'dist', 'cli.js');
const PEER_CLI = join(
  dirname(require.resolve('@ivotoby/openapi-mcp-server/package.json')),
  'bin',
  'mcp-server.js',
);
const BARE = join(HERE, 'bare-server.mjs');
const TOKEN = 'bench-token';

// Calls per server and concurrency, split into rounds that alternate between the servers, so
// that background load on the machine falls on every server alike.
const COUNTS = QUICK
  ? { warmup: 1000, c1: 400, c16: 640, c64: 640, rounds: 4, cold: 3, memoryCalls: 10_000 }
  : { warmup: 1000, c1: 2400, c16: 3200, c64: 3200, rounds: 8, cold: 9, memoryCalls: 10_000 };
const CONCURRENCY = [1, 16, 64];

// ---- process bookkeeping: every child is ended by its pid when the bench ends ------------
const children = new Set();
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
function killChildren() {
  for (const c of children) c.kill('SIGKILL');
  try {
    rmSync(LOG_DIR, { recursive: true, force: true });
  } catch {}
}
process.on('exit', killChildren);
const HARD_LIMIT_MS = (QUICK ? 4 : 12) * 60_000;
setTimeout(() => {
  console.error(`bench: exceeded ${HARD_LIMIT_MS / 60000} minutes, stopping`);
  process.exit(2);
}, HARD_LIMIT_MS).unref();

// The SDK's Streamable HTTP client adds an abort listener per request to one signal; that is
// the client's affair, not the measured server's, so its listener-count warning is muted.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'MaxListenersExceededWarning') console.error(`${w.name}: ${w.message}`);
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startUpstream() {
  const child = track(
    spawn(process.execPath, [join(HERE, 'upstream.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', () => reject(new Error('upstream exited')));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill() };
}

function hostConfig(upstream, plugins) {
  const dir = mkdtempSync(join(LOG_DIR, 'config-'));
  const file = join(dir, 'toolhost.config.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...(plugins ? { plugins } : {}),
      toolSets: { CrmEventsApi: { baseUrl: upstream } },
      auth: { providers: { 'crm-auth-provider': { token: TOKEN } } },
    }),
  );
  return file;
}

function peerArgs(upstream) {
  return [
    PEER_CLI,
    '--api-base-url',
    upstream,
    '--openapi-spec',
    join(HERE, 'peer-openapi.json'),
    '--headers',
    `Authorization:Bearer ${TOKEN}`,
    '--name',
    'peer',
  ];
}

/** The servers measured; each knows how to start over stdio or HTTP and which call to make. */
function servers(upstream) {
  return {
    bare: {
      label: 'bare MCP SDK server (floor)',
      stdio: [BARE, upstream],
      http: (port) => [BARE, upstream, '--http', String(port)],
      call: { name: 'list_event_definitions', arguments: { limit: 10 } },
    },
    host: {
      label: 'toolhost',
      stdio: [HOST_CLI, '--config', hostConfig(upstream), 'serve', '--stdio'],
      http: (port) => [HOST_CLI, '--config', hostConfig(upstream), 'serve', '--http', String(port)],
      call: {
        name: 'CrmEventsApi_RetrieveCustomEventDefinitions',
        arguments: { results_per_page_limit: 10 },
      },
    },
    peer: {
      label: 'peer: @ivotoby/openapi-mcp-server',
      stdio: peerArgs(upstream),
      http: (port) => [
        ...peerArgs(upstream),
        '--transport',
        'http',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
      ],
      call: { name: undefined, arguments: { limit: 10 } },
    },
  };
}

function env() {
  return { PATH: process.env.PATH ?? '', NODE_ENV: 'production' };
}

// Servers' stderr (the host's log lines) goes to a file, as a client would keep it, rather
// than into this process: reading it here would cost the measuring process time per call.
const LOG_DIR = mkdtempSync(join(tmpdir(), 'toolhost-bench-logs-'));
let logCount = 0;
function stderrFile() {
  logCount += 1;
  const path = join(LOG_DIR, `server-${logCount}.log`);
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

async function connectStdio(args) {
  const log = stderrFile();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: env(),
    cwd: PKG_DIR,
    stderr: log.fd,
  });
  const client = new Client({ name: 'toolhost-bench', version: '0.0.0' });
  const started = performance.now();
  try {
    await client.connect(transport);
    const list = await client.listTools();
    const startMs = performance.now() - started;
    log.close();
    return { client, pid: transport.pid, startMs, list, close: () => client.close(), tail: log.tail };
  } catch (e) {
    log.close();
    throw new Error(`${args[0]} failed to start over stdio: ${e.message}\n${log.tail()}`);
  }
}

async function connectHttp(argsFor) {
  const port = await freePort();
  const log = stderrFile();
  const child = track(
    spawn(process.execPath, argsFor(port), { cwd: PKG_DIR, env: env(), stdio: ['ignore', 'ignore', log.fd] }),
  );
  log.close();
  const tail = log.tail;
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new Client({ name: 'toolhost-bench', version: '0.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(url));
      const list = await client.listTools();
      return {
        client,
        pid: child.pid,
        list,
        tail,
        close: async () => {
          await client.close().catch(() => {});
          child.kill();
        },
      };
    } catch (e) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`${argsFor(port)[0]} failed to start over HTTP: ${e.message}\n${tail()}`);
      await sleep(50);
    }
  }
}

function mcpCaller(conn, call) {
  const name = call.name ?? conn.list.tools[0].name;
  const params = { name, arguments: call.arguments };
  return async () => {
    const r = await conn.client.callTool(params);
    if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content).slice(0, 300)}`);
  };
}

async function warmup(subject) {
  await load(subject.call, { total: COUNTS.warmup, concurrency: 8 });
}

/**
 * Measures the subjects (each {key, call, cpu}) at every concurrency, alternating between
 * them round by round; overheads are against the subject keyed `direct` of the same run.
 */
async function compare(subjects) {
  const out = Object.fromEntries(subjects.map((s) => [s.key, []]));
  for (const c of CONCURRENCY) {
    const samples = Object.fromEntries(subjects.map((s) => [s.key, []]));
    const perRound = Math.ceil(COUNTS[`c${c}`] / COUNTS.rounds);
    for (let r = 0; r < COUNTS.rounds; r += 1) {
      for (const s of subjects) {
        samples[s.key].push(await load(s.call, { total: perRound, concurrency: c, cpu: s.cpu }));
      }
    }
    for (const s of subjects) out[s.key].push(summarize(c, samples[s.key]));
  }
  for (const s of subjects) {
    if (s.key === 'direct') continue;
    out[s.key] = out[s.key].map((p, i) => ({
      ...p,
      overheadP50: round(p.p50 - out.direct[i].p50),
      overheadP99: round(p.p99 - out.direct[i].p99),
    }));
  }
  return out;
}

function callsMeasured() {
  return CONCURRENCY.reduce((n, c) => n + Math.ceil(COUNTS[`c${c}`] / COUNTS.rounds) * COUNTS.rounds, 0);
}

// ---- catalog ------------------------------------------------------------------------------
const enc = new Tiktoken(o200kBase);
const tokens = (text) => enc.encode(text).length;

function catalogCost(tools, instructions) {
  const bySet = {};
  for (const t of tools) {
    const set = t.name.split('_')[0];
    bySet[set] ??= [];
    bySet[set].push(t);
  }
  const sets = Object.entries(bySet)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([toolSet, list]) => {
      const json = JSON.stringify(list);
      return { toolSet, tools: list.length, bytes: Buffer.byteLength(json), tokens: tokens(json) };
    });
  const json = JSON.stringify({ tools });
  return {
    tools: tools.length,
    bytes: Buffer.byteLength(json),
    tokens: tokens(json),
    instructionsTokens: instructions ? tokens(instructions) : 0,
    sets,
  };
}

// ---- output ---------------------------------------------------------------------------------
function table(headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === undefined ? '–' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(cells[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

function machine() {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {}
  return {
    cpus: cpus().length,
    cpu,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
  };
}

// ---- main -----------------------------------------------------------------------------------
async function main() {
  const started = Date.now();
  const upstream = await startUpstream();
  const S = servers(upstream.url);
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    quick: QUICK,
    counts: COUNTS,
    upstream: 'loopback node:http server in its own process, 200 with a fixed 84-byte JSON body',
    tokenizer: 'o200k_base (js-tiktoken) over the JSON of the tools/list result',
  };

  // Catalog (and memory after start) from the host with every installed plugin.
  log('catalog: host with every installed plugin over stdio');
  const full = await connectStdio(S.host.stdio);
  const instructions = full.client.getInstructions();
  result.catalog = catalogCost(full.list.tools, instructions);
  const baselineFile = join(RESULTS, 'catalog-baseline.json');
  if (SAVE_BASELINE) writeFileSync(baselineFile, `${JSON.stringify(result.catalog, null, 2)}\n`);
  const baseline = existsSync(baselineFile) ? JSON.parse(readFileSync(baselineFile, 'utf8')) : undefined;
  result.catalogBaseline = baseline;
  if (CATALOG_ONLY) {
    await full.close();
    upstream.close();
    printCatalog(result);
    return;
  }

  const directAxios = axios.create();
  const directUrl = `${upstream.url}/events/v3/event-definitions`;
  const selfCpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const direct = {
    key: 'direct',
    cpu: selfCpu,
    call: async () => {
      await directAxios.get(directUrl, {
        params: { limit: 10 },
        headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` },
      });
    },
  };
  await warmup(direct);

  // stdio: the host with every plugin (also measured for memory over 10,000 calls), the bare
  // SDK server and the peer.
  log('stdio: starting the bare server and the peer');
  const stdio = {
    host: full,
    bare: await connectStdio(S.bare.stdio),
    peer: await connectStdio(S.peer.stdio),
  };
  const rss = { host: { start: processRssMb(full.pid) }, bare: { start: processRssMb(stdio.bare.pid) } };
  const stdioSubjects = Object.entries(stdio).map(([key, conn]) => ({
    key,
    call: mcpCaller(conn, S[key].call),
    cpu: () => processCpuMs(conn.pid),
  }));
  for (const s of stdioSubjects) await warmup(s);
  rss.host.warm = processRssMb(full.pid);
  log('stdio: measuring');
  result.stdio = await compare([direct, ...stdioSubjects]);
  let hostCalls = COUNTS.warmup + callsMeasured();
  if (hostCalls < COUNTS.memoryCalls) {
    log(`stdio: host up to ${COUNTS.memoryCalls} calls for memory`);
    await load(stdioSubjects[0].call, { total: COUNTS.memoryCalls - hostCalls, concurrency: 16 });
    hostCalls = COUNTS.memoryCalls;
  }
  result.memory = {
    host: {
      rssAfterStartMb: rss.host.start,
      rssAfterWarmupMb: rss.host.warm,
      warmupCalls: COUNTS.warmup,
      rssAfterCallsMb: processRssMb(full.pid),
      calls: hostCalls,
    },
    bare: { rssAfterStartMb: rss.bare.start, rssAfterCallsMb: processRssMb(stdio.bare.pid) },
  };
  result.memory.host.growthMb = round(result.memory.host.rssAfterCallsMb - rss.host.warm, 1);
  for (const conn of Object.values(stdio)) await conn.close();

  log('Streamable HTTP: starting the bare server, the host and the peer');
  const http = {};
  for (const key of ['bare', 'host', 'peer']) http[key] = await connectHttp(S[key].http);
  const httpSubjects = Object.entries(http).map(([key, conn]) => ({
    key,
    call: mcpCaller(conn, S[key].call),
    cpu: () => processCpuMs(conn.pid),
  }));
  for (const s of httpSubjects) await warmup(s);
  log('Streamable HTTP: measuring');
  result.http = await compare([direct, ...httpSubjects]);
  for (const conn of Object.values(http)) await conn.close();

  log('in-process embedding API');
  const { createHost } = await import('@toolhost/host');
  const host = await createHost({
    plugins: ['@toolhost/plugin-crm-events'],
    toolSets: { CrmEventsApi: { baseUrl: upstream.url } },
    auth: { providers: { 'crm-auth-provider': { token: TOKEN } } },
  });
  const embedded = {
    key: 'host',
    cpu: selfCpu,
    call: async () => {
      const outcome = await host.callTool('CrmEventsApi.RetrieveCustomEventDefinitions', {
        results_per_page_limit: 10,
      });
      if (!outcome.ok) throw new Error(outcome.error.message);
    },
  };
  // Leak check without transport noise: heap after full GC, after 1,000 and 10,000 calls.
  const heapMb = () => {
    globalThis.gc?.();
    globalThis.gc?.();
    return round(process.memoryUsage().heapUsed / 2 ** 20, 2);
  };
  await warmup(embedded);
  const heap1k = heapMb();
  await load(embedded.call, { total: 9000, concurrency: 16 });
  const heap10k = heapMb();
  result.memory.embeddingHeap = globalThis.gc
    ? { after1000CallsMb: heap1k, after10000CallsMb: heap10k, growthMb: round(heap10k - heap1k, 2) }
    : undefined;
  result.embedding = await compare([direct, embedded]);
  for (const [i, p] of result.embedding.host.entries())
    p.cpuUsOverDirect = p.cpuUsPerCall - result.embedding.direct[i].cpuUsPerCall;
  await host.close();

  log('cold start: process start to first tools/list answer');
  const coldArgs = {
    hostAllPlugins: S.host.stdio,
    hostOnePlugin: [
      HOST_CLI,
      '--config',
      hostConfig(upstream.url, ['@toolhost/plugin-crm-events']),
      'serve',
      '--stdio',
    ],
    bare: S.bare.stdio,
    peer: S.peer.stdio,
  };
  const times = Object.fromEntries(Object.keys(coldArgs).map((k) => [k, []]));
  for (let i = 0; i < COUNTS.cold; i += 1) {
    for (const [key, args] of Object.entries(coldArgs)) {
      const conn = await connectStdio(args);
      times[key].push(conn.startMs);
      await conn.close();
    }
  }
  result.coldStart = Object.fromEntries(
    Object.entries(times).map(([k, t]) => [
      k,
      { medianMs: Math.round(median(t)), minMs: Math.round(Math.min(...t)), runs: t.length },
    ]),
  );
  result.coldStart.hostAllPlugins.tools = result.catalog.tools;
  upstream.close();

  result.targets = targets(result);
  result.durationSeconds = Math.round((Date.now() - started) / 1000);
  mkdirSync(RESULTS, { recursive: true });
  const md = report(result);
  writeFileSync(join(RESULTS, QUICK ? 'quick.json' : 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, QUICK ? 'quick.md' : 'latest.md'), `${md}\n`);
  console.log(`\n${md}\n`);
  console.log(
    `wrote ${join('packages/bench/results', QUICK ? 'quick.json' : 'latest.json')} (${result.durationSeconds} s)`,
  );
}

const T0 = Date.now();
function log(text) {
  console.error(`bench [${((Date.now() - T0) / 1000).toFixed(1)} s]: ${text}`);
}

const at = (phases, c) => phases.find((p) => p.concurrency === c);
const fmt = (n, unit = '') => (n === undefined || Number.isNaN(n) ? '–' : `${n}${unit}`);

function targets(r) {
  const rows = [];
  const add = (what, target, measured, floor, met) => rows.push({ what, target, measured, floor, met });
  const s1 = { host: at(r.stdio.host, 1), bare: at(r.stdio.bare, 1) };
  const h1 = { host: at(r.http.host, 1), bare: at(r.http.bare, 1) };
  add(
    'stdio p50 overhead (c=1)',
    '≤ floor + 0.1 ms',
    `${s1.host.overheadP50} ms`,
    `${s1.bare.overheadP50} ms`,
    s1.host.overheadP50 <= s1.bare.overheadP50 + 0.1,
  );
  add(
    'stdio p99 overhead (c=1)',
    '≤ floor + 1 ms',
    `${s1.host.overheadP99} ms`,
    `${s1.bare.overheadP99} ms`,
    s1.host.overheadP99 <= s1.bare.overheadP99 + 1,
  );
  add(
    'HTTP p50 overhead (c=1)',
    '≤ floor + 0.2 ms',
    `${h1.host.overheadP50} ms`,
    `${h1.bare.overheadP50} ms`,
    h1.host.overheadP50 <= h1.bare.overheadP50 + 0.2,
  );
  add(
    'HTTP p50 overhead (c=1), stretch',
    '< floor',
    `${h1.host.overheadP50} ms`,
    `${h1.bare.overheadP50} ms`,
    h1.host.overheadP50 < h1.bare.overheadP50,
  );
  for (const [t, set] of [
    ['stdio', r.stdio],
    ['HTTP', r.http],
  ]) {
    const host = at(set.host, 64).cpuUsPerCall;
    const bare = at(set.bare, 64).cpuUsPerCall;
    add(
      `${t} server CPU per call (c=64)`,
      '≤ floor',
      `${fmt(host, ' µs')}`,
      `${fmt(bare, ' µs')}`,
      host <= bare,
    );
  }
  add(
    `cold start, all plugins (${r.coldStart.hostAllPlugins.tools} tools)`,
    '< 450 ms',
    `${r.coldStart.hostAllPlugins.medianMs} ms`,
    `${r.coldStart.bare.medianMs} ms`,
    r.coldStart.hostAllPlugins.medianMs < 450,
  );
  add(
    'RSS after start, all plugins',
    '< 100 MB',
    `${r.memory.host.rssAfterStartMb} MB`,
    `${r.memory.bare.rssAfterStartMb} MB`,
    r.memory.host.rssAfterStartMb < 100,
  );
  const heap = r.memory.embeddingHeap;
  if (heap)
    add(
      'heap growth after GC, 1,000 → 10,000 calls (in process)',
      '≈ 0 (≤ 1 MB)',
      `${heap.growthMb} MB`,
      '–',
      heap.growthMb <= 1,
    );
  add(
    `RSS growth over stdio, ${r.memory.host.warmupCalls.toLocaleString('en')} → ${r.memory.host.calls.toLocaleString('en')} calls`,
    'reported',
    `${r.memory.host.growthMb} MB`,
    `${round(r.memory.bare.rssAfterCallsMb - r.memory.bare.rssAfterStartMb, 1)} MB (start → end)`,
    undefined,
  );
  add(
    `catalog tokens (${r.catalog.tools} tools + instructions)`,
    '< 20,000',
    (r.catalog.tokens + r.catalog.instructionsTokens).toLocaleString('en'),
    '–',
    r.catalog.tokens + r.catalog.instructionsTokens < 20_000,
  );
  return rows;
}

function latencyRows(set) {
  const rows = [];
  for (const c of CONCURRENCY) {
    for (const [key, label] of [
      ['direct', 'direct axios (baseline)'],
      ['bare', 'bare SDK (floor)'],
      ['host', 'toolhost'],
      ['peer', 'peer (openapi-mcp-server)'],
    ]) {
      const p = set[key] && at(set[key], c);
      if (!p) continue;
      rows.push([
        c,
        label,
        p.p50,
        p.p99,
        p.overheadP50,
        p.overheadP99,
        p.callsPerSecond,
        fmt(p.cpuUsPerCall),
      ]);
    }
  }
  return rows;
}

function printCatalog(r) {
  console.log(catalogTable(r));
}

function catalogTable(r) {
  const before = new Map((r.catalogBaseline?.sets ?? []).map((s) => [s.toolSet, s]));
  const rows = r.catalog.sets.map((s) => {
    const b = before.get(s.toolSet);
    return [
      s.toolSet,
      s.tools,
      b ? `${b.tokens} (${b.tools} tools)` : '–',
      s.tokens,
      Math.round(s.tokens / s.tools),
      s.bytes,
    ];
  });
  const b = r.catalogBaseline;
  rows.push([
    'all tools/list',
    r.catalog.tools,
    b ? `${b.tokens} (${b.tools} tools)` : '–',
    r.catalog.tokens,
    Math.round(r.catalog.tokens / r.catalog.tools),
    r.catalog.bytes,
  ]);
  rows.push([
    'server instructions (once)',
    '',
    b ? b.instructionsTokens : '–',
    r.catalog.instructionsTokens,
    '',
    '',
  ]);
  return table(['tool set', 'tools', 'tokens before', 'tokens now', 'tokens/tool', 'bytes now'], rows);
}

function report(r) {
  const m = r.machine;
  const out = [];
  out.push(
    `Machine: ${m.cpus} × ${m.cpu}, ${m.memoryGb} GB, Node ${m.node}, Linux ${m.kernel}; ${r.date}${r.quick ? ' (--quick)' : ''}`,
  );
  out.push('');
  out.push('### Targets');
  out.push('');
  out.push(
    table(
      ['what', 'target', 'toolhost', 'floor (bare SDK server)', 'met'],
      r.targets.map((t) => [
        t.what,
        t.target,
        t.measured,
        t.floor,
        t.met === undefined ? '–' : t.met ? 'yes' : 'NO',
      ]),
    ),
  );
  out.push('');
  out.push(
    'Overhead = the p50 (p99) latency of a call through the server minus that of a direct axios call to the same upstream from the bench process, measured in alternating rounds. Server CPU = user + system time of the server process (/proc/<pid>/stat) over the calls; for the embedding API, of the bench process itself.',
  );
  out.push('');
  const headers = [
    'conc.',
    'server',
    'p50 ms',
    'p99 ms',
    'overhead p50',
    'overhead p99',
    'calls/s',
    'server CPU µs/call',
  ];
  out.push('### stdio');
  out.push('');
  out.push(table(headers, latencyRows(r.stdio)));
  out.push('');
  out.push('### Streamable HTTP');
  out.push('');
  out.push(table(headers, latencyRows(r.http)));
  out.push('');
  out.push('### In-process embedding API (no transport)');
  out.push('');
  out.push(
    table(
      [
        'conc.',
        'direct axios p50 / p99 ms',
        'host.callTool p50 / p99 ms',
        'overhead p50',
        'overhead p99',
        'calls/s',
        'CPU µs/call (direct)',
        'CPU µs over direct',
      ],
      r.embedding.host.map((p, i) => {
        const d = r.embedding.direct[i];
        return [
          p.concurrency,
          `${d.p50} / ${d.p99}`,
          `${p.p50} / ${p.p99}`,
          p.overheadP50,
          p.overheadP99,
          p.callsPerSecond,
          `${p.cpuUsPerCall} (${d.cpuUsPerCall})`,
          p.cpuUsOverDirect,
        ];
      }),
    ),
  );
  out.push('');
  out.push('### Cold start (process start → first tools/list answer, stdio) and memory');
  out.push('');
  const c = r.coldStart;
  out.push(
    table(
      ['server', 'cold start median', 'min', 'RSS after start', 'RSS after calls'],
      [
        [
          `toolhost, all plugins (${c.hostAllPlugins.tools} tools)`,
          `${c.hostAllPlugins.medianMs} ms`,
          `${c.hostAllPlugins.minMs} ms`,
          `${r.memory.host.rssAfterStartMb} MB`,
          `${r.memory.host.rssAfterCallsMb} MB after ${r.memory.host.calls.toLocaleString('en')} calls (${r.memory.host.rssAfterWarmupMb} MB after ${r.memory.host.warmupCalls.toLocaleString('en')})`,
        ],
        [
          'toolhost, one plugin (CrmEventsApi)',
          `${c.hostOnePlugin.medianMs} ms`,
          `${c.hostOnePlugin.minMs} ms`,
          '',
          '',
        ],
        [
          'bare SDK server, one tool',
          `${c.bare.medianMs} ms`,
          `${c.bare.minMs} ms`,
          `${r.memory.bare.rssAfterStartMb} MB`,
          `${r.memory.bare.rssAfterCallsMb} MB`,
        ],
        ['peer, one tool', `${c.peer.medianMs} ms`, `${c.peer.minMs} ms`, '', ''],
      ],
    ),
  );
  out.push('');
  out.push('### Catalog cost (tools/list answer; tokens: o200k_base)');
  out.push('');
  out.push(catalogTable(r));
  return out.join('\n');
}

main()
  .then(() => {
    killChildren();
    process.exit(0);
  })
  .catch((e) => {
    console.error(e);
    killChildren();
    process.exit(1);
  });
