// The measurement plan: how many calls each server gets at which concurrency, and the rounds
// that spread them so that every subject is measured under the same conditions.
import { load, round, summarize } from './measure.mjs';

export const CONCURRENCY = [1, 16, 64];

// Calls per server and concurrency, split into rounds that alternate between the servers, so
// that background load on the machine falls on every server alike.
export function countsFor(quick) {
  return quick
    ? { warmup: 1000, c1: 400, c16: 640, c64: 640, rounds: 4, cold: 3, memoryCalls: 10_000 }
    : { warmup: 1000, c1: 2400, c16: 3200, c64: 3200, rounds: 8, cold: 9, memoryCalls: 10_000 };
}

/** The summary of one concurrency in a subject's list of summaries. */
export const at = (phases, c) => phases.find((p) => p.concurrency === c);

export async function warmup(subject, counts) {
  await load(subject.call, { total: counts.warmup, concurrency: 8 });
}

const perRound = (counts, c) => Math.ceil(counts[`c${c}`] / counts.rounds);

/** How many calls `compare` makes to each subject, rounding included. */
export function callsMeasured(counts) {
  return CONCURRENCY.reduce((n, c) => n + perRound(counts, c) * counts.rounds, 0);
}

/**
 * Measures the subjects (each {key, call, cpu}) at every concurrency, alternating between
 * them round by round; overheads are against the subject keyed `direct` of the same run.
 */
export async function compare(subjects, counts) {
  const out = Object.fromEntries(subjects.map((s) => [s.key, []]));
  for (const c of CONCURRENCY) {
    const samples = Object.fromEntries(subjects.map((s) => [s.key, []]));
    for (let r = 0; r < counts.rounds; r += 1) {
      for (const s of subjects) {
        samples[s.key].push(await load(s.call, { total: perRound(counts, c), concurrency: c, cpu: s.cpu }));
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
