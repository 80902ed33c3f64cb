// Figures taken over several runs: each side's median and range, the paired difference of two
// sides run by run, and whether that difference stands out of the run-to-run spread. A figure
// inside the spread is reported as such, never as a gain or a loss.
import { median } from './measure.mjs';

/**
 * @typedef {object} AcrossRuns One figure over several runs.
 * @property {number} median
 * @property {number} min
 * @property {number} max
 * @property {number} spreadPct half the range against the median, in % (±)
 */

/**
 * @param {readonly number[]} values one per run, not empty
 * @returns {AcrossRuns}
 */
export function acrossRuns(values) {
  const m = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { median: m, min, max, spreadPct: m === 0 ? 0 : ((max - min) / 2 / m) * 100 };
}

/**
 * @typedef {object} Comparison `after` against `before`, both measured in every run.
 * @property {AcrossRuns} before
 * @property {AcrossRuns} after
 * @property {number} diffPct the median over runs of each run's after / before − 1, in %
 * @property {number} minDiffPct the lowest run's
 * @property {number} maxDiffPct the highest run's
 * @property {number} spreadPct the larger of the two sides' run-to-run spreads (±%)
 * @property {'better' | 'no worse' | 'worse, inside the spread' | 'worse, outside the spread' | 'one run: no spread to judge by'} verdict
 */

/**
 * Compares two sides measured in the same runs (paired: run i of one against run i of the
 * other, so that what loaded the machine during a run loads both). Lower is better. A
 * difference is inside the spread when some run went the other way, or when it is no larger
 * than the run-to-run spread of either side; a gain only counts as one when it is outside it.
 * @param {readonly number[]} before one figure per run
 * @param {readonly number[]} after one figure per run, in the same order
 * @returns {Comparison}
 */
export function compareRuns(before, after) {
  const diffs = before.map((b, i) => ((after[i] ?? Number.NaN) / b - 1) * 100);
  const b = acrossRuns(before);
  const a = acrossRuns(after);
  const diffPct = median(diffs);
  const minDiffPct = Math.min(...diffs);
  const maxDiffPct = Math.max(...diffs);
  const spreadPct = Math.max(b.spreadPct, a.spreadPct);
  const inside = (/** @type {boolean} */ straddles) => straddles || Math.abs(diffPct) <= spreadPct;
  const verdict =
    before.length < 2
      ? 'one run: no spread to judge by'
      : diffPct <= 0
        ? inside(maxDiffPct >= 0)
          ? 'no worse'
          : 'better'
        : inside(minDiffPct <= 0)
          ? 'worse, inside the spread'
          : 'worse, outside the spread';
  return { before: b, after: a, diffPct, minDiffPct, maxDiffPct, spreadPct, verdict };
}

/** A signed percentage, one decimal. */
/** @type {(n: number) => string} */
export const pct = (n) => (Number.isNaN(n) ? '–' : `${n > 0 ? '+' : ''}${n.toFixed(1)}%`);

/**
 * A median with its range, as `median (min–max)`, rounded.
 * @param {AcrossRuns} r
 */
export const withRange = (r) => `${Math.round(r.median)} (${Math.round(r.min)}–${Math.round(r.max)})`;
