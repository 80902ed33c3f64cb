// `pnpm bench --session-transport [--runs N] [--quick]`: the host's own Streamable HTTP session
// transport (http/session-transport.ts) against the v2 SDK's (NodeStreamableHTTPServerTransport,
// with JSON answers and in its default event-stream mode), each serving the same host's MCP
// server in its own process (session-transport-server.mjs), under the same load: the SDK's v1
// client opening a session, c=1 and c=64, rounds taking turns, fresh processes every run and
// the start order turned from run to run. Prints server CPU per call, p50 and resident memory
// after the calls, each the median over the runs with its range, and the SDK's against the
// host's run by run (spread.mjs). Asserts nothing.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAfterCounts } from './before-after.mjs';
import { processRssMb } from './measure.mjs';
import { connectHttp } from './processes.mjs';
import { table } from './report.mjs';
import { compare, warmup } from './rounds.mjs';
import { acrossRuns, compareRuns, pct, withRange } from './spread.mjs';
import { HOST_CLI, hostConfig, hostServer, mcpSubject } from './subjects.mjs';

const HARNESS = join(dirname(fileURLToPath(import.meta.url)), 'session-transport-server.mjs');
const KINDS = /** @type {const} */ (['host', 'sdk-json', 'sdk-sse']);
const LABEL = {
  host: "host's SessionTransport",
  'sdk-json': "SDK's NodeStreamableHTTPServerTransport, JSON answers",
  'sdk-sse': "SDK's NodeStreamableHTTPServerTransport, event streams (its default)",
};
const CONCURRENCY = [1, 64];
/** What the SDK's transport against the host's (lower CPU is better) says of the host's. */
const SDK_VERDICT = {
  better: "the SDK's costs less: the host's is not justified",
  'no worse': "as good as the host's, within the spread",
  'worse, inside the spread': "costs more, but inside the spread: as good as the host's",
  'worse, outside the spread': "costs more, outside the spread: the host's wins",
  'one run: no spread to judge by': 'one run: no spread to judge by',
};

/**
 * @param {string} upstream
 * @param {{ runs: number, quick: boolean, log: (text: string) => void }} options
 */
export async function sessionTransportCost(upstream, { runs, quick, log }) {
  const counts = beforeAfterCounts(quick);
  const config = hostConfig(upstream);
  const call = hostServer(HOST_CLI, upstream).call;
  /** Per kind: CPU µs per call by concurrency, p50 ms at c=1, RSS MB after the calls; one figure per run. */
  const seen = Object.fromEntries(
    KINDS.map((k) => [
      k,
      {
        cpu1: /** @type {number[]} */ ([]),
        cpu64: /** @type {number[]} */ ([]),
        p50: /** @type {number[]} */ ([]),
        rss: /** @type {number[]} */ ([]),
      },
    ]),
  );
  for (let run = 0; run < runs; run += 1) {
    // Each run starts with the next transport, so that none is always first or last.
    const order = KINDS.map((_, i) => KINDS[(i + run) % KINDS.length] ?? 'host');
    log(`run ${run + 1}/${runs}: starting ${order.join(', ')}`);
    const conns = [];
    for (const kind of order)
      conns.push({
        kind,
        conn: await connectHttp((port) => [HARNESS, config, String(port), kind], 'session'),
      });
    const subjects = conns.map(({ kind, conn }) => mcpSubject(kind, conn, call));
    for (const s of subjects) await warmup(s, counts);
    log(`run ${run + 1}/${runs}: measuring`);
    const phases = await compare(subjects, counts, CONCURRENCY);
    for (const { kind, conn } of conns) {
      const s = seen[kind];
      for (const p of phases[kind] ?? []) {
        if (p.failures > 0) throw new Error(`${kind}: ${p.failures} calls failed\n${conn.tail()}`);
        if (p.cpuUsPerCall !== undefined) (p.concurrency === 1 ? s?.cpu1 : s?.cpu64)?.push(p.cpuUsPerCall);
        if (p.concurrency === 1 && p.p50 !== undefined) s?.p50.push(p.p50);
      }
      const rss = processRssMb(conn.pid);
      if (rss !== undefined) s?.rss.push(rss);
      await conn.close();
    }
  }
  return report(seen, runs, counts);
}

/**
 * @param {Record<string, { cpu1: number[], cpu64: number[], p50: number[], rss: number[] }>} seen
 * @param {number} runs
 * @param {ReturnType<typeof beforeAfterCounts>} counts
 */
function report(seen, runs, counts) {
  const host = seen.host;
  /** @type {(values: number[]) => string} */
  const range = (values) => (values.length ? withRange(acrossRuns(values)) : '–');
  /** @type {(values: number[]) => string} */
  const ms = (values) => {
    if (!values.length) return '–';
    const r = acrossRuns(values);
    return `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
  };
  const rows = KINDS.map((kind) => {
    const s = seen[kind];
    const against =
      kind === 'host' || !host?.cpu64.length || !s?.cpu64.length
        ? undefined
        : compareRuns(host.cpu64, s.cpu64);
    return [
      LABEL[kind],
      range(s?.cpu1 ?? []),
      range(s?.cpu64 ?? []),
      against
        ? `${pct(against.diffPct)} (${pct(against.minDiffPct)} to ${pct(against.maxDiffPct)}), ±${against.spreadPct.toFixed(1)}%`
        : '–',
      against ? SDK_VERDICT[against.verdict] : '–',
      ms(s?.p50 ?? []),
      range(s?.rss ?? []),
    ];
  });
  return [
    `Session-era Streamable HTTP transports serving the same host: ${runs} runs; per run and transport ` +
      `${counts.warmup} warm-up calls, then ${counts.c1} calls at c=1 and ${counts.c64} at c=64 in ` +
      `${counts.rounds} interleaved rounds. Median over the runs (lowest–highest).`,
    table(
      [
        'transport',
        'CPU µs/call c=1',
        'CPU µs/call c=64',
        "c=64 against the host's (runs), spread",
        'verdict',
        'p50 ms c=1',
        'RSS MB after',
      ],
      rows,
    ),
  ].join('\n\n');
}
