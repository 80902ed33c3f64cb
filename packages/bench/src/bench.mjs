// pnpm bench [-- --quick] [--catalog-only] [--agents-only] [--save-baseline]
//            [--transport-only [--profile DIR]] [--store-only] [--cold-only [--runs N]]
//            [--before <checkout>/packages/host/dist/cli.js [--after PATH] [--runs N] [--cold-only]]
//            [--session-transport [--runs N]]
//
// Measures, in one run on one machine, against a loopback upstream with a fixed small answer:
// per-call latency and server CPU of the host (stdio, Streamable HTTP, in-process embedding)
// against a direct axios call, a bare MCP SDK server (the floor) and a generic
// OpenAPI-to-MCP peer; cold start; resident memory; and the tools/list catalog's size in
// bytes and o200k_base tokens; for agents, search_tools' accuracy and latency in the dynamic
// catalog and the size of large answers (agents.mjs). Prints tables and writes
// results/latest.json and latest.md.
// Loopback only (127.0.0.1); stops by itself. Timing is reported, never asserted.
//
// This file holds the flags and the order of the phases; the parts live beside it:
// processes.mjs (children, MCP connections), subjects.mjs (what is measured), rounds.mjs and
// measure.mjs (how), catalog-cost.mjs, targets.mjs and report.mjs (what comes out);
// before-after.mjs and session-transport-cost.mjs are comparisons run on their own.
import { measureDiscovery, measureResultSize } from './agents.mjs';
import { beforeAfter } from './before-after.mjs';
import { catalogCost } from './catalog-cost.mjs';
import { measureColdStart } from './cold-start.mjs';
import { load, processRssMb, round } from './measure.mjs';
import { connectHttp, connectStdio } from './processes.mjs';
import {
  agentsTables,
  catalogTable,
  coldStartTable,
  machine,
  readCatalogBaseline,
  saveCatalogBaseline,
  targetsTable,
  writeResults,
} from './report.mjs';
import { callsMeasured, compare, countsFor, warmup } from './rounds.mjs';
import { measureSessionChurn } from './session-churn.mjs';
import { sessionTransportCost } from './session-transport-cost.mjs';
import { measureStoreCost } from './store-cost.mjs';
import {
  coldStartArgs,
  directSubject,
  embeddedSubject,
  mcpSubject,
  servers,
  startUpstream,
} from './subjects.mjs';
import { agentTargets, targets } from './targets.mjs';
import { transportOnly } from './transport-only.mjs';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const CATALOG_ONLY = argv.includes('--catalog-only');
const AGENTS_ONLY = argv.includes('--agents-only');
const SAVE_BASELINE = argv.includes('--save-baseline');
const TRANSPORT_ONLY = argv.includes('--transport-only');
const STORE_ONLY = argv.includes('--store-only');
const COLD_ONLY = argv.includes('--cold-only');
const PROFILE_DIR = argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : undefined;
const RUNS = argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : undefined;
const BEFORE = argv.includes('--before') ? argv[argv.indexOf('--before') + 1] : undefined;
const AFTER = argv.includes('--after') ? argv[argv.indexOf('--after') + 1] : undefined;
const SESSION_TRANSPORT = argv.includes('--session-transport');
const COUNTS = { ...countsFor(QUICK), ...(RUNS ? { cold: RUNS } : {}) };

// A hung server must not hold the bench forever; children are killed on exit (processes.mjs).
// The comparisons run several times over: their limit is per run asked for (a run of --before
// took about 6 minutes with --quick on 2 cores at a load average of 25).
const COMPARING = BEFORE !== undefined || SESSION_TRANSPORT;
const HARD_LIMIT_MS = (QUICK ? 6 : 12) * 60_000 * (COMPARING ? 2 * (RUNS ?? 3) : 1);
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

const T0 = Date.now();
/** @param {string} text */
function log(text) {
  console.error(`bench [${((Date.now() - T0) / 1000).toFixed(1)} s]: ${text}`);
}

async function main() {
  const started = Date.now();
  const upstream = await startUpstream();
  if (BEFORE !== undefined) {
    const runs = RUNS ?? 3;
    log(`before and after side by side, ${runs} runs`);
    console.log(
      await beforeAfter(upstream.url, {
        before: BEFORE,
        after: AFTER,
        runs,
        quick: QUICK,
        coldOnly: COLD_ONLY,
        log,
      }),
    );
    upstream.close();
    return;
  }
  if (SESSION_TRANSPORT) {
    const runs = RUNS ?? 3;
    log(`session transports, the host's and the SDK's, ${runs} runs`);
    console.log(await sessionTransportCost(upstream.url, { runs, quick: QUICK, log }));
    upstream.close();
    return;
  }
  if (TRANSPORT_ONLY) {
    console.log(await transportOnly(upstream.url, COUNTS, { profileDir: PROFILE_DIR, log }));
    upstream.close();
    return;
  }
  if (STORE_ONLY) {
    log('token store and pacer: the same OAuth call, file store against Redis, then idle paced calls');
    console.log(
      JSON.stringify(
        await measureStoreCost(upstream.url, { calls: COUNTS.storeCalls, rounds: COUNTS.rounds }),
        null,
        2,
      ),
    );
    upstream.close();
    return;
  }
  const S = servers(upstream.url);
  if (COLD_ONLY) {
    log(`cold start only: ${COUNTS.cold} starts per server, process start to first tools/list answer`);
    const listed = await connectStdio(S.host.stdio);
    await listed.close();
    const coldStart = await measureColdStart(coldStartArgs(S, upstream.url, listed.list.tools), COUNTS.cold);
    upstream.close();
    console.log(coldStartTable(coldStart));
    return;
  }
  /** @type {import('./bench-result.js').RunResult} */
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
  const catalog = catalogCost(full.list.tools, instructions);
  result.catalog = catalog;
  if (SAVE_BASELINE) saveCatalogBaseline(catalog);
  result.catalogBaseline = readCatalogBaseline();
  if (CATALOG_ONLY) {
    await full.close();
    upstream.close();
    console.log(catalogTable({ ...result, catalog }));
    return;
  }

  log('agents: search_tools over serve --stdio --catalog dynamic');
  result.discovery = await measureDiscovery(upstream.url, { quick: QUICK });
  log('agents: answers to 100 KB and 1 MB bodies over stdio');
  result.resultSize = await measureResultSize(upstream.url, { quick: QUICK });
  if (AGENTS_ONLY) {
    await full.close();
    upstream.close();
    const targets = agentTargets(result);
    result.targets = targets;
    console.log(
      `${targetsTable({ targets })}\n\n${catalogTable({ ...result, catalog })}\n\n${agentsTables(result)}`,
    );
    return;
  }

  const direct = directSubject(upstream.url);
  await warmup(direct, COUNTS);

  // stdio: the host with every plugin (also measured for memory over 10,000 calls), the bare
  // SDK server and the peer.
  log('stdio: starting the bare server and the peer');
  const stdio = {
    host: full,
    hostStateless: await connectStdio(S.host.stdio, 'stateless'),
    bare: await connectStdio(S.bare.stdio),
    peer: await connectStdio(S.peer.stdio),
  };
  const rssHostStart = processRssMb(full.pid);
  const rssBareStart = processRssMb(stdio.bare.pid);
  const hostStdioSubject = mcpSubject('host', stdio.host, S.host.call);
  const stdioSubjects = [
    hostStdioSubject,
    mcpSubject('hostStateless', stdio.hostStateless, S.host.call),
    mcpSubject('bare', stdio.bare, S.bare.call),
    mcpSubject('peer', stdio.peer, S.peer.call),
  ];
  for (const s of stdioSubjects) await warmup(s, COUNTS);
  const rssHostWarm = processRssMb(full.pid);
  log('stdio: measuring');
  const stdioPhases = await compare([direct, ...stdioSubjects], COUNTS);
  let hostCalls = COUNTS.warmup + callsMeasured(COUNTS);
  if (hostCalls < COUNTS.memoryCalls) {
    log(`stdio: host up to ${COUNTS.memoryCalls} calls for memory`);
    await load(hostStdioSubject.call, { total: COUNTS.memoryCalls - hostCalls, concurrency: 16 });
    hostCalls = COUNTS.memoryCalls;
  }
  /** @type {import('./bench-result.js').Memory} */
  const memory = {
    host: {
      rssAfterStartMb: rssHostStart,
      rssAfterWarmupMb: rssHostWarm,
      warmupCalls: COUNTS.warmup,
      rssAfterCallsMb: processRssMb(full.pid),
      calls: hostCalls,
    },
    bare: { rssAfterStartMb: rssBareStart, rssAfterCallsMb: processRssMb(stdio.bare.pid) },
  };
  // An RSS not read (off Linux) makes the growth NaN, which round() reports as not measured.
  memory.host.growthMb = round((memory.host.rssAfterCallsMb ?? Number.NaN) - (rssHostWarm ?? Number.NaN), 1);
  for (const conn of Object.values(stdio)) await conn.close();

  log('Streamable HTTP: starting the bare server, the host (in each era) and the peer');
  const http = {
    bare: await connectHttp(S.bare.http),
    host: await connectHttp(S.host.http),
    hostStateless: await connectHttp(S.host.http, 'stateless'),
    peer: await connectHttp(S.peer.http),
  };
  const httpSubjects = [
    mcpSubject('bare', http.bare, S.bare.call),
    mcpSubject('host', http.host, S.host.call),
    mcpSubject('hostStateless', http.hostStateless, S.host.call),
    mcpSubject('peer', http.peer, S.peer.call),
  ];
  for (const s of httpSubjects) await warmup(s, COUNTS);
  log('Streamable HTTP: measuring');
  const httpPhases = await compare([direct, ...httpSubjects], COUNTS);
  for (const conn of Object.values(http)) await conn.close();

  log('in-process embedding API');
  const embedded = await embeddedSubject(upstream.url);
  // Leak check without transport noise: heap after full GC, after 1,000 and 10,000 calls.
  const heapMb = () => {
    globalThis.gc?.();
    globalThis.gc?.();
    return round(process.memoryUsage().heapUsed / 2 ** 20, 2);
  };
  await warmup(embedded, COUNTS);
  const heap1k = heapMb();
  await load(embedded.call, { total: 9000, concurrency: 16 });
  const heap10k = heapMb();
  memory.embeddingHeap = globalThis.gc
    ? {
        after1000CallsMb: heap1k,
        after10000CallsMb: heap10k,
        growthMb: round((heap10k ?? Number.NaN) - (heap1k ?? Number.NaN), 2),
      }
    : undefined;
  /** @type {import('./bench-result.js').EmbeddingPhases} */
  const embedding = await compare([direct, embedded], COUNTS);
  for (const [i, p] of embedding.host.entries())
    p.cpuUsOverDirect = (p.cpuUsPerCall ?? Number.NaN) - (embedding.direct[i]?.cpuUsPerCall ?? Number.NaN);
  await embedded.close();

  log('token store: the same OAuth call with its token in the encrypted file and in Redis');
  const storeCost = await measureStoreCost(upstream.url, { calls: COUNTS.storeCalls, rounds: COUNTS.rounds });
  if (!storeCost) log('token store: redis-server is not installed, phase skipped');
  log(`HTTP sessions: ${COUNTS.sessions} opened and dropped, memory at start, middle and end`);
  const sessionChurn = await measureSessionChurn(upstream.url, { sessions: COUNTS.sessions });

  log('cold start: process start to first tools/list answer');
  const { hostAllPlugins, ...others } = await measureColdStart(
    coldStartArgs(S, upstream.url, full.list.tools),
    COUNTS.cold,
  );
  const coldStart = { hostAllPlugins: { ...hostAllPlugins, tools: catalog.tools }, ...others };
  upstream.close();

  // The phases in the order results/latest.json has always listed them.
  const measured = {
    ...result,
    catalog,
    stdio: stdioPhases,
    memory,
    http: httpPhases,
    embedding,
    ...(storeCost ? { storeCost } : {}),
    sessionChurn,
    coldStart,
  };
  writeResults({
    ...measured,
    targets: targets(measured),
    durationSeconds: Math.round((Date.now() - started) / 1000),
  });
}

// Exiting ends every child (processes.mjs kills them on the process's 'exit').
main()
  .then(() => process.exit(0))
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
