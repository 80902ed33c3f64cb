// Cold start: each server spawned fresh over stdio, timed from spawn to its first tools/list
// answer, and its resident memory read right then. Servers take turns run by run, so that
// background load on the machine falls on every server alike.
import { median, processRssMb, round } from './measure.mjs';
import { connectStdio } from './processes.mjs';

/**
 * @template {string} K
 * @param {Record<K, string[]>} args each server's stdio arguments
 * @param {number} runs starts per server
 * @returns {Promise<Record<K, { medianMs: number, minMs: number, runs: number, rssMb?: number, tools: number }>>}
 */
export async function measureColdStart(args, runs) {
  const keys = /** @type {K[]} */ (Object.keys(args));
  /** @type {Record<string, number[]>} */
  const times = Object.fromEntries(keys.map((k) => [k, []]));
  /** @type {Record<string, number[]>} */
  const rss = Object.fromEntries(keys.map((k) => [k, []]));
  /** @type {Record<string, number>} */
  const tools = {};
  for (let i = 0; i < runs; i += 1) {
    for (const key of keys) {
      const conn = await connectStdio(args[key]);
      times[key]?.push(conn.startMs);
      tools[key] = conn.list.tools.length;
      const mb = processRssMb(conn.pid);
      if (mb !== undefined) rss[key]?.push(mb);
      await conn.close();
    }
  }
  return /** @type {Record<K, any>} */ (
    Object.fromEntries(
      keys.map((key) => {
        const t = times[key] ?? [];
        const m = rss[key] ?? [];
        return [
          key,
          {
            medianMs: Math.round(median(t)),
            minMs: Math.round(Math.min(...t)),
            runs: t.length,
            ...(m.length > 0 ? { rssMb: round(median(m), 1) } : {}),
            tools: tools[key] ?? 0,
          },
        ];
      }),
    )
  );
}
