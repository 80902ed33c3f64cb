// What agents get from the host: how well search_tools finds the right tool in the dynamic
// catalog (first the everyday set's untouched test part and k-fold figures, then the older
// evaluation sets in ../eval, and its latency over stdio),
// what the dynamic listing costs, and how large a tool's answer is against its body at 100 KB
// and 1 MB (the host sending the body once, its default budget, and the bare SDK server).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mcpToolName } from '@toolhost/host';
import { bigBody } from './big-body.mjs';
import { catalogCost } from './catalog-cost.mjs';
import { median, percentile, round } from './measure.mjs';
import { connectStdio } from './processes.mjs';
import { loadRealQuestions, scoreRealQuestions } from './real-questions.mjs';
import { EVAL_DIR, EVERYDAY_FILE, kFold, loadRequests, partOf, scoreRankings } from './search-eval.mjs';
import { BARE_SERVER, hostStdio } from './subjects.mjs';

const mcpName = (/** @type {string} */ canonical) => mcpToolName(canonical);

/** @typedef {{ request: string, tool: string }} EvalRequest One request in words, and the tool (`Set.Tool`) that serves it. */

/**
 * The evaluation sets: the main one (tool-search-requests.json) first, then the held-out ones.
 * @returns {{ file: string, requests: EvalRequest[] }[]}
 */
function evaluationSets() {
  return readdirSync(EVAL_DIR)
    .filter((f) => f.startsWith('tool-search-') && f.endsWith('.json'))
    .sort((a, b) =>
      a === 'tool-search-requests.json' ? -1 : b === 'tool-search-requests.json' ? 1 : a.localeCompare(b),
    )
    .map((file) => ({ file, requests: JSON.parse(readFileSync(join(EVAL_DIR, file), 'utf8')) }));
}

/**
 * search_tools over `serve --stdio --catalog dynamic`: accuracy per set, latency, listing cost.
 * @param {string} upstream
 * @param {{ quick: boolean }} options
 */
export async function measureDiscovery(upstream, { quick }) {
  const args = [...hostStdio(upstream, undefined, undefined), '--catalog', 'dynamic'];
  const conn = await connectStdio(args);
  const listing = catalogCost(conn.list.tools, conn.client.getInstructions());
  const search = async (/** @type {string} */ query) => {
    const t = performance.now();
    const r = await conn.client.callTool({ name: 'search_tools', arguments: { query, limit: 5 } });
    const ms = performance.now() - t;
    const found = /** @type {{ tools: { name: string }[] }} */ (r.structuredContent);
    return { ms, names: found.tools.map((x) => x.name) };
  };
  const sets = evaluationSets();
  const mainRequests = sets[0]?.requests ?? [];
  // Warm-up: the index is built after the first tools/list; the first searches JIT the code.
  for (const { request } of mainRequests.slice(0, 50)) await search(request);
  /** @type {number[]} */
  const latencies = [];
  // The everyday set, scored per part: `test` was never looked at while tuning the ranking.
  const everyday = loadRequests(EVERYDAY_FILE);
  /** @type {string[][]} */
  const ranked = [];
  for (const { request } of everyday) {
    const { ms, names } = await search(request);
    latencies.push(ms);
    ranked.push(names.map((n) => n.replace('_', '.')));
  }
  const part = (/** @type {'tune' | 'test'} */ p) => {
    const idx = everyday.map((r, i) => (partOf(r.request) === p ? i : -1)).filter((i) => i >= 0);
    return scoreRankings(
      idx.map((i) => /** @type {import('./search-eval.mjs').EvalRequest} */ (everyday[i])),
      idx.map((i) => ranked[i] ?? []),
    );
  };
  const everydayResult = {
    file: EVERYDAY_FILE,
    test: part('test'),
    tune: part('tune'),
    kFold: kFold(everyday, ranked),
  };
  // The questions people asked in public: the held-out half counts as totals only.
  const questions = loadRealQuestions();
  /** @type {string[][]} */
  const questionRanks = [];
  for (const { question } of questions) {
    const { ms, names } = await search(question);
    latencies.push(ms);
    questionRanks.push(names.map((n) => n.replace('_', '.')));
  }
  const realQuestions = scoreRealQuestions(questions, questionRanks);
  const results = [];
  for (const { file, requests } of sets) {
    let top1 = 0;
    let top5 = 0;
    /** @type {Set<string>} */
    const tools = new Set();
    for (const { request, tool } of requests) {
      tools.add(tool);
      const { ms, names } = await search(request);
      latencies.push(ms);
      if (names[0] === mcpName(tool)) top1 += 1;
      if (names.includes(mcpName(tool))) top5 += 1;
    }
    results.push({
      file,
      requests: requests.length,
      toolsCovered: tools.size,
      top1: round((100 * top1) / requests.length, 1),
      top5: round((100 * top5) / requests.length, 1),
    });
  }
  // More rounds of the main set for stable latency percentiles.
  for (let i = 0; i < (quick ? 1 : 3); i += 1)
    for (const { request } of mainRequests) latencies.push((await search(request)).ms);
  latencies.sort((a, b) => a - b);
  await conn.close();
  return {
    catalogTools: conn.list.tools.length,
    everyday: everydayResult,
    realQuestions,
    sets: results,
    searches: latencies.length,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    listing: {
      tools: listing.tools,
      tokens: listing.tokens,
      instructionsTokens: listing.instructionsTokens,
      total: listing.tokens + listing.instructionsTokens,
    },
  };
}

/**
 * Counts the bytes of every message the client receives, as the server serialized it.
 * @param {{ transport: import('@modelcontextprotocol/sdk/shared/transport.js').Transport }} conn
 */
function countBytes(conn) {
  const meter = { last: 0 };
  const receive = conn.transport.onmessage;
  conn.transport.onmessage = (message, extra) => {
    meter.last = Buffer.byteLength(JSON.stringify(message));
    receive?.(message, extra);
  };
  return meter;
}

/**
 * The answer to one large body over stdio: bytes against the body's, and call time.
 * @param {string} upstream
 * @param {{ quick: boolean }} options
 */
export async function measureResultSize(upstream, { quick }) {
  const sizes = [100_000, 1_000_000];
  const calls = quick ? 8 : 20;
  const servers = {
    bare: { label: 'bare SDK server (body once, as text)', args: [BARE_SERVER, upstream] },
    hostOnce: {
      label: 'toolhost, budget raised to 4 MiB (body once)',
      args: hostStdio(upstream, ['@toolhost/plugin-grid'], { maxResultBytes: 4 * 2 ** 20 }),
    },
    hostDefault: {
      label: 'toolhost, default budget (80,000 bytes)',
      args: hostStdio(upstream, ['@toolhost/plugin-grid']),
    },
  };
  const rows = [];
  for (const [key, server] of Object.entries(servers)) {
    const conn = await connectStdio(server.args);
    const meter = countBytes(conn);
    for (const bytes of sizes) {
      const bodyBytes = Buffer.byteLength(bigBody(bytes));
      const call = () =>
        key === 'bare'
          ? conn.client.callTool({ name: 'get_big', arguments: { bytes } })
          : conn.client.callTool({
              name: 'GridApi_ListGridRecords',
              arguments: { base_id: 'big', table_id_or_name: `bytes-${bytes}` },
            });
      for (let i = 0; i < 3; i += 1) await call();
      /** @type {number[]} */
      const times = [];
      let answer = 0;
      /** @type {number | undefined} */
      let resourceBytes;
      for (let i = 0; i < calls; i += 1) {
        const t = performance.now();
        const r = await call();
        times.push(performance.now() - t);
        answer = meter.last;
        const content = /** @type {{ type: string, uri?: string }[]} */ (r.content);
        const link = content.find((c) => c.type === 'resource_link');
        if (link?.uri && i === 0) {
          await conn.client.readResource({ uri: link.uri });
          resourceBytes = meter.last;
        }
      }
      rows.push({
        server: key,
        label: server.label,
        bodyBytes,
        answerBytes: answer,
        ratio: round(answer / bodyBytes, 3),
        resourceReadBytes: resourceBytes,
        p50Ms: round(median(times), 2),
      });
    }
    await conn.close();
  }
  return rows;
}
