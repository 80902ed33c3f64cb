// Small measuring helpers: load loops, percentiles, and a child process's CPU time and RSS
// read from /proc (Linux), so every server is measured the same way whatever it is.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** @type {number | undefined} */
let clockTicks;
function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * User + system CPU time of a process (all its threads), in milliseconds; undefined off Linux
 * or without a pid (a child that failed to spawn).
 * @param {number | null | undefined} pid
 * @returns {number | undefined}
 */
export function processCpuMs(pid) {
  if (pid == null) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
  } catch {
    return undefined;
  }
}

/**
 * Resident set size of a process in MB; undefined off Linux or without a pid.
 * @param {number | null | undefined} pid
 * @returns {number | undefined}
 */
export function processRssMb(pid) {
  if (pid == null) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return undefined;
  }
}

/**
 * @param {ArrayLike<number>} sorted ascending
 * @param {number} p percent, 0-100
 * @returns {number}
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return /** @type {number} */ (sorted[i]);
}

/** @type {(n: number | undefined, digits?: number) => number | undefined} */
export const round = (n, digits = 3) =>
  n === undefined || Number.isNaN(n) ? undefined : Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Runs `total` calls with `concurrency` workers, each worker resting `gapMs` (not timed)
 * before each of its calls. `cpu()` returns the measured server's CPU time in ms (or
 * undefined). Returns the raw samples, to be merged with `summarize`.
 * @param {() => Promise<unknown>} call
 * @param {{ total: number, concurrency: number, gapMs?: number, cpu?: () => number | undefined }} options
 * @returns {Promise<Samples>}
 */
export async function load(call, { total, concurrency, gapMs = 0, cpu = () => undefined }) {
  const latencies = new Float64Array(total);
  let next = 0;
  let failures = 0;
  const cpuBefore = cpu();
  const started = performance.now();
  async function worker() {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      const t = performance.now();
      try {
        await call();
      } catch (e) {
        failures += 1;
        if (failures === 1) console.error(`  call failed: ${/** @type {Error} */ (e)?.message ?? e}`);
      }
      latencies[i] = performance.now() - t;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  const cpuAfter = cpu();
  return {
    latencies,
    failures,
    wallMs,
    cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
  };
}

/**
 * @typedef {object} Samples One round's raw measurements.
 * @property {Float64Array} latencies per call, in ms
 * @property {number} failures
 * @property {number} wallMs
 * @property {number | undefined} cpuMs the server's CPU time over the round
 */

/**
 * @typedef {object} Summary
 * @property {number} concurrency
 * @property {number} calls
 * @property {number} failures
 * @property {number | undefined} p50 ms
 * @property {number | undefined} p99 ms
 * @property {number} callsPerSecond
 * @property {number | undefined} cpuUsPerCall
 */

/**
 * Merges the samples of several rounds into percentiles (ms), calls/s and CPU µs per call.
 * @param {number} concurrency
 * @param {readonly Samples[]} samples
 * @returns {Summary}
 */
export function summarize(concurrency, samples) {
  /** @type {number[]} */
  const all = [];
  let wallMs = 0;
  /** @type {number | undefined} */
  let cpuMs = 0;
  let failures = 0;
  for (const s of samples) {
    for (const l of s.latencies) all.push(l);
    wallMs += s.wallMs;
    failures += s.failures;
    cpuMs = cpuMs === undefined || s.cpuMs === undefined ? undefined : cpuMs + s.cpuMs;
  }
  all.sort((a, b) => a - b);
  return {
    concurrency,
    calls: all.length,
    failures,
    p50: round(percentile(all, 50)),
    p99: round(percentile(all, 99)),
    callsPerSecond: Math.round((all.length / wallMs) * 1000),
    cpuUsPerCall: cpuMs === undefined ? undefined : Math.round((cpuMs * 1000) / all.length),
  };
}

/**
 * @param {readonly number[]} values not empty
 * @returns {number}
 */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const at = (/** @type {number} */ i) => /** @type {number} */ (s[i]);
  return s.length % 2 ? at((s.length - 1) / 2) : (at(s.length / 2 - 1) + at(s.length / 2)) / 2;
}
