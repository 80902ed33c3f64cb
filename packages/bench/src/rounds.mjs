// The measurement plan: how many calls each server gets at which concurrency, and the rounds
// that spread them so that every subject is measured under the same conditions.
import { load, round, summarize } from './measure.mjs';

/** @typedef {import('./measure.mjs').Summary} Summary */
/** @typedef {ReturnType<typeof countsFor>} Counts */
/**
 * @typedef {object} Subject What is measured: a call, and where given the server's CPU time.
 * @property {string} key
 * @property {() => Promise<unknown>} call
 * @property {() => number | undefined} [cpu]
 */
/** @typedef {Summary & { overheadP50?: number, overheadP99?: number }} Phase */

export const CONCURRENCY = [1, 16, 64];

// Calls per server and concurrency, split into rounds that alternate between the servers, so
// that background load on the machine falls on every server alike.
/** @param {boolean} quick */
export function countsFor(quick) {
  return quick
    ? {
        warmup: 1000,
        c1: 400,
        c16: 640,
        c64: 640,
        rounds: 4,
        cold: 3,
        memoryCalls: 10_000,
        storeCalls: 800,
        sessions: 400,
      }
    : {
        warmup: 1000,
        c1: 2400,
        c16: 3200,
        c64: 3200,
        rounds: 8,
        cold: 9,
        memoryCalls: 10_000,
        storeCalls: 2400,
        sessions: 2000,
      };
}

/** The summary of one concurrency in a subject's list of summaries. */
/** @type {(phases: readonly Phase[], c: number) => Phase | undefined} */
export const at = (phases, c) => phases.find((p) => p.concurrency === c);

/**
 * @param {Pick<Subject, 'call'>} subject
 * @param {Counts} counts
 */
export async function warmup(subject, counts) {
  await load(subject.call, { total: counts.warmup, concurrency: 8 });
}

/** @type {(counts: Counts, c: number) => number} */
const perRound = (counts, c) =>
  Math.ceil(counts[/** @type {'c1' | 'c16' | 'c64'} */ (`c${c}`)] / counts.rounds);

/** How many calls `compare` makes to each subject, rounding included. */
/** @param {Counts} counts */
export function callsMeasured(counts) {
  return CONCURRENCY.reduce((n, c) => n + perRound(counts, c) * counts.rounds, 0);
}

/**
 * Measures the subjects (each {key, call, cpu}) at every concurrency (or the given ones),
 * alternating between them round by round; overheads are against the subject keyed `direct`
 * of the same run, when there is one.
 * @template {string} K
 * @param {readonly (Subject & { key: K })[]} subjects
 * @param {Counts} counts
 * @param {readonly number[]} [concurrencies]
 * @returns {Promise<Record<K, Phase[]>>}
 */
export async function compare(subjects, counts, concurrencies = CONCURRENCY) {
  /** @type {Record<string, Phase[]>} */
  const out = Object.fromEntries(subjects.map((s) => [s.key, []]));
  /** @type {(key: string) => Phase[]} */
  const of = (key) => /** @type {Phase[]} */ (out[key]);
  for (const c of concurrencies) {
    /** @type {Record<string, import('./measure.mjs').Samples[]>} */
    const samples = Object.fromEntries(subjects.map((s) => [s.key, []]));
    for (let r = 0; r < counts.rounds; r += 1) {
      for (const s of subjects) {
        samples[s.key]?.push(await load(s.call, { total: perRound(counts, c), concurrency: c, cpu: s.cpu }));
      }
    }
    for (const s of subjects) of(s.key).push(summarize(c, samples[s.key] ?? []));
  }
  // Without a `direct` subject (a comparison of servers alone) there is no overhead to take.
  const direct = out.direct;
  for (const s of subjects) {
    if (s.key === 'direct' || !direct) continue;
    // A percentile is undefined only when a phase made no call at all; NaN then reads as n/a.
    out[s.key] = of(s.key).map((p, i) => ({
      ...p,
      overheadP50: round((p.p50 ?? Number.NaN) - (direct[i]?.p50 ?? Number.NaN)),
      overheadP99: round((p.p99 ?? Number.NaN) - (direct[i]?.p99 ?? Number.NaN)),
    }));
  }
  // One list per subject, keyed as the subjects are.
  return /** @type {Record<K, Phase[]>} */ (out);
}
