// Cold start: each server spawned fresh (over stdio unless told otherwise), timed from spawn
// to its first tools/list answer, with its resident memory and the CPU time it used read right then. Servers take
// turns run by run, so that background load on the machine falls on every server alike, and
// each run's start is also taken against the bare SDK server's of the same run (paired).
import { median, processCpuMs, processRssMb, round } from './measure.mjs';
import { connectStdio } from './processes.mjs';

/** @typedef {import('./bench-result.js').ColdStart & { tools: number }} ColdStartRow */
/**
 * @typedef {object} Started A server just started and answered its first tools/list.
 * @property {number} startMs spawn to that answer
 * @property {number | null | undefined} pid
 * @property {{ tools: unknown[] }} list
 * @property {() => Promise<void>} close
 */

/**
 * @template {string} K
 * @param {Record<K, string[] | (() => Promise<Started>)>} args each server's stdio arguments, or
 *   how it is started (another transport, another folder); the one keyed `bare` is the floor
 * @param {number} runs starts per server
 * @returns {Promise<Record<K, ColdStartRow>>}
 */
export async function measureColdStart(args, runs) {
  const keys = /** @type {K[]} */ (Object.keys(args));
  /** @type {Record<string, { ms: number[], rss: number[], cpu: number[], tools: number }>} */
  const seen = Object.fromEntries(keys.map((k) => [k, { ms: [], rss: [], cpu: [], tools: 0 }]));
  const of = (/** @type {string} */ key) => /** @type {(typeof seen)[string]} */ (seen[key]);
  for (let i = 0; i < runs; i += 1) {
    for (const key of keys) {
      const how = args[key];
      const conn = typeof how === 'function' ? await how() : await connectStdio(how);
      const s = of(key);
      s.ms.push(conn.startMs);
      s.tools = conn.list.tools.length;
      const mb = processRssMb(conn.pid);
      if (mb !== undefined) s.rss.push(mb);
      const cpu = processCpuMs(conn.pid);
      if (cpu !== undefined) s.cpu.push(cpu);
      await conn.close();
    }
  }
  const bare = seen.bare?.ms;
  /** @type {Record<string, ColdStartRow>} */
  const out = {};
  for (const key of keys) {
    const { ms, rss, cpu, tools } = of(key);
    out[key] = {
      medianMs: Math.round(median(ms)),
      minMs: Math.round(Math.min(...ms)),
      runs: ms.length,
      ...(rss.length > 0 ? { rssMb: round(median(rss), 1) } : {}),
      ...(cpu.length > 0 ? { cpuMs: Math.round(median(cpu)) } : {}),
      ...(bare
        ? { overBarePairedMs: Math.round(median(ms.map((m, i) => m - (bare[i] ?? Number.NaN)))) }
        : {}),
      tools,
    };
  }
  return /** @type {Record<K, ColdStartRow>} */ (out);
}
