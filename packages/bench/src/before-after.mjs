// `pnpm bench --before <checkout>/packages/host/dist/cli.js [--after PATH] [--runs N] [--quick] [--cold-only]`:
// the built host of two checkouts side by side, in the same run, driven by the same client:
// server CPU per tools/call and cold start (spawn to the first tools/list answer), over stdio
// and Streamable HTTP, in both protocol eras (2025-11-25 sessions, 2026-07-28 requests);
// `--cold-only` measures the cold starts alone, so that more runs fit in the same time.
// Every run starts fresh processes; within a run the two hosts take turns round by round, and
// the one that goes first alternates from run to run. Printed as tables: each side's median
// over the runs with its range, the paired difference run by run, and whether it stands out
// of the run-to-run spread (spread.mjs). Asserts nothing.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { measureColdStart } from './cold-start.mjs';
import { connectHttp, connectStdio } from './processes.mjs';
import { table } from './report.mjs';
import { compare, countsFor, warmup } from './rounds.mjs';
import { compareRuns, pct, withRange } from './spread.mjs';
import { HOST_CLI, hostServer, mcpSubject } from './subjects.mjs';

/** @typedef {import('./processes.mjs').Era} Era */
/** @typedef {'stdio' | 'http'} TransportName */
/** @typedef {'before' | 'after'} Side */

const TRANSPORTS = /** @type {const} */ (['stdio', 'http']);
const ERAS = /** @type {const} */ (['session', 'stateless']);
const TRANSPORT_LABEL = { stdio: 'stdio', http: 'Streamable HTTP' };
const ERA_LABEL = { session: '2025-11-25 (session)', stateless: '2026-07-28 (requests)' };
const CONCURRENCY = [1, 64];

/** How many calls and starts each host gets per run: fewer than a full bench's, run several times. */
/** @param {boolean} quick */
export function beforeAfterCounts(quick) {
  return {
    ...countsFor(quick),
    ...(quick
      ? { warmup: 400, c1: 300, c64: 800, rounds: 2, cold: 2 }
      : { warmup: 600, c1: 600, c64: 1600, rounds: 4, cold: 3 }),
  };
}

/**
 * Where a host's command runs: the bench folder of its own checkout, so that each host loads
 * the plugins installed with it, not the other checkout's.
 * @param {string} cli
 */
function pluginsDirOf(cli) {
  const bench = resolve(dirname(cli), '..', '..', 'bench');
  return existsSync(join(bench, 'node_modules')) ? bench : resolve(dirname(cli), '..');
}

/**
 * @param {string} upstream
 * @param {{ before: string, after?: string, runs: number, quick: boolean, coldOnly?: boolean, log: (text: string) => void }} options
 */
export async function beforeAfter(
  upstream,
  { before, after = HOST_CLI, runs, quick, coldOnly = false, log },
) {
  const counts = beforeAfterCounts(quick);
  const sides =
    /** @type {Record<Side, { cli: string, cwd: string, server: import('./subjects.mjs').Server }>} */ ({
      before: {
        cli: resolve(before),
        cwd: pluginsDirOf(resolve(before)),
        server: hostServer(resolve(before), upstream),
      },
      after: {
        cli: resolve(after),
        cwd: pluginsDirOf(resolve(after)),
        server: hostServer(resolve(after), upstream),
      },
    });
  for (const s of Object.values(sides))
    if (!existsSync(s.cli)) throw new Error(`${s.cli} does not exist: build that checkout's host first`);

  /**
   * Starts one side's host on a transport in an era, connected.
   * @param {Side} side
   * @param {TransportName} transport
   * @param {Era} era
   */
  const start = (side, transport, era) => {
    const { server, cwd } = sides[side];
    return transport === 'stdio'
      ? connectStdio(server.stdio, era, { cwd })
      : connectHttp(server.http, era, { cwd });
  };

  /** CPU µs per call, by `transport era side c`, one figure per run. */
  /** @type {Map<string, number[]>} */
  const cpu = new Map();
  /** Cold start ms and CPU ms to the first answer, by `transport era side`, one median per run. */
  /** @type {Map<string, { ms: number[], cpuMs: number[] }>} */
  const cold = new Map();
  const push = (/** @type {string} */ key, /** @type {number | undefined} */ value) => {
    if (value !== undefined) cpu.set(key, [...(cpu.get(key) ?? []), value]);
  };

  for (let run = 0; run < runs; run += 1) {
    /** @type {Side[]} */
    const order = run % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const transport of coldOnly ? [] : TRANSPORTS) {
      log(
        `run ${run + 1}/${runs}, ${TRANSPORT_LABEL[transport]}: starting ${order.join(' and ')} in both eras`,
      );
      /** @type {{ key: string, side: Side, era: Era, conn: Awaited<ReturnType<typeof start>> }[]} */
      const hosts = [];
      for (const side of order)
        for (const era of ERAS)
          hosts.push({ key: `${side} ${era}`, side, era, conn: await start(side, transport, era) });
      const subjects = hosts.map((h) => mcpSubject(h.key, h.conn, sides[h.side].server.call));
      for (const s of subjects) await warmup(s, counts);
      log(`run ${run + 1}/${runs}, ${TRANSPORT_LABEL[transport]}: measuring`);
      const phases = await compare(subjects, counts, CONCURRENCY);
      for (const h of hosts) {
        for (const p of phases[h.key] ?? []) {
          if (p.failures > 0)
            throw new Error(`${h.key} over ${transport}: ${p.failures} calls failed\n${h.conn.tail()}`);
          push(`${transport} ${h.era} ${h.side} ${p.concurrency}`, p.cpuUsPerCall);
        }
        await h.conn.close();
      }
    }
    log(`run ${run + 1}/${runs}: cold starts, ${counts.cold} per host, transport and era`);
    /** @type {Record<string, () => ReturnType<typeof start>>} */
    const starters = {};
    for (const transport of TRANSPORTS)
      for (const era of ERAS)
        for (const side of order) starters[`${transport} ${era} ${side}`] = () => start(side, transport, era);
    const starts = await measureColdStart(starters, counts.cold);
    for (const [key, row] of Object.entries(starts)) {
      const seen = cold.get(key) ?? { ms: [], cpuMs: [] };
      seen.ms.push(row.medianMs);
      if (row.cpuMs !== undefined) seen.cpuMs.push(row.cpuMs);
      cold.set(key, seen);
    }
  }
  return report({ cpu, cold, runs, counts, sides, coldOnly });
}

/**
 * @param {{
 *   cpu: Map<string, number[]>,
 *   cold: Map<string, { ms: number[], cpuMs: number[] }>,
 *   runs: number,
 *   counts: ReturnType<typeof beforeAfterCounts>,
 *   sides: Record<Side, { cli: string }>,
 *   coldOnly: boolean,
 * }} measured
 */
function report({ cpu, cold, runs, counts, sides, coldOnly }) {
  const headers = ['transport', 'era', 'before', 'after', 'after − before (runs)', 'spread', 'verdict'];
  /**
   * One row comparing the two sides' figures of one transport and era.
   * @param {TransportName} transport
   * @param {Era} era
   * @param {number[] | undefined} b
   * @param {number[] | undefined} a
   */
  const row = (transport, era, b, a) => {
    if (!b?.length || !a?.length)
      return [TRANSPORT_LABEL[transport], ERA_LABEL[era], '–', '–', '–', '–', 'not measured'];
    const c = compareRuns(b, a);
    return [
      TRANSPORT_LABEL[transport],
      ERA_LABEL[era],
      withRange(c.before),
      withRange(c.after),
      `${pct(c.diffPct)} (${pct(c.minDiffPct)} to ${pct(c.maxDiffPct)})`,
      `±${c.spreadPct.toFixed(1)}%`,
      c.verdict,
    ];
  };
  const rows = (
    /** @type {(t: TransportName, e: Era) => [number[] | undefined, number[] | undefined]} */ pick,
  ) => TRANSPORTS.flatMap((t) => ERAS.map((e) => row(t, e, ...pick(t, e))));
  const coldOf = (/** @type {string} */ key) => cold.get(key);
  const perRun = coldOnly
    ? `${counts.cold} cold starts per host, transport and era`
    : `${counts.warmup} warm-up calls, then ${counts.c1} calls at c=1 and ${counts.c64} at c=64 in ` +
      `${counts.rounds} interleaved rounds, and ${counts.cold} cold starts`;
  const sections = [
    `Before: ${sides.before.cli}\nAfter:  ${sides.after.cli}\n` +
      `${runs} runs; per run and host ${perRun} (median per run). Figures: median over the runs ` +
      "(lowest–highest); the difference is the median of each run's after/before − 1 (lowest to " +
      "highest run); spread: ± half the larger side's range.",
  ];
  for (const c of coldOnly ? [] : CONCURRENCY)
    sections.push(
      `Server CPU per tools/call (µs, user + system of the server process, c=${c})\n\n${table(
        headers,
        rows((t, e) => [cpu.get(`${t} ${e} before ${c}`), cpu.get(`${t} ${e} after ${c}`)]),
      )}`,
    );
  sections.push(
    `Cold start, spawn to the first tools/list answer (ms)\n\n${table(
      headers,
      rows((t, e) => [coldOf(`${t} ${e} before`)?.ms, coldOf(`${t} ${e} after`)?.ms]),
    )}`,
  );
  sections.push(
    `CPU time to the first tools/list answer (ms, less moved by the machine's load than the wall time)\n\n${table(
      headers,
      rows((t, e) => [coldOf(`${t} ${e} before`)?.cpuMs, coldOf(`${t} ${e} after`)?.cpuMs]),
    )}`,
  );
  return sections.join('\n\n');
}
