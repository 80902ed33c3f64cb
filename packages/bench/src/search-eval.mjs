// How well a ranking of tools serves a set of requests: top-1/3/5 and MRR@5, overall and per
// tool set, and the deterministic split of the everyday request set into the part the ranking
// may be tuned on and the part it is only tested on (and into folds for k-fold figures).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { round } from './measure.mjs';

export const EVAL_DIR = join(dirname(dirname(fileURLToPath(import.meta.url))), 'eval');
export const EVERYDAY_FILE = 'everyday-requests.json';
export const FOLDS = 5;

/** @typedef {{ request: string, tool: string }} EvalRequest One request in words, and the tool (`Set.Tool`) that serves it. */

/** FNV-1a over the request's text: a split that no later edit of other requests moves. */
function hash(/** @type {string} */ text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** `tune` (60%) or `test` (40%): the test part is never looked at while tuning. */
export const partOf = (/** @type {string} */ request) => (hash(request) % 10 < 6 ? 'tune' : 'test');
/** Which of FOLDS folds a request falls in (independent of the tune/test split's digit). */
export const foldOf = (/** @type {string} */ request) => Math.floor(hash(request) / 10) % FOLDS;

/** @returns {EvalRequest[]} */
export function loadRequests(/** @type {string} */ file) {
  return JSON.parse(readFileSync(join(EVAL_DIR, file), 'utf8'));
}

/**
 * Metrics of ranked answers: `ranked[i]` is the names returned for `requests[i]`, best first.
 * @param {EvalRequest[]} requests
 * @param {string[][]} ranked canonical names (`Set.Tool`)
 */
export function scoreRankings(requests, ranked) {
  const tally = () => ({ n: 0, top1: 0, top3: 0, top5: 0, rr: 0, tools: new Set() });
  const all = tally();
  /** @type {Map<string, ReturnType<typeof tally>>} */
  const bySet = new Map();
  requests.forEach(({ tool }, i) => {
    const rank = (ranked[i] ?? []).slice(0, 5).indexOf(tool);
    const set = tool.split('.')[0] ?? '';
    if (!bySet.has(set)) bySet.set(set, tally());
    for (const t of [all, /** @type {ReturnType<typeof tally>} */ (bySet.get(set))]) {
      t.n += 1;
      t.tools.add(tool);
      if (rank === 0) t.top1 += 1;
      if (rank >= 0 && rank < 3) t.top3 += 1;
      if (rank >= 0) {
        t.top5 += 1;
        t.rr += 1 / (rank + 1);
      }
    }
  });
  const figures = (/** @type {ReturnType<typeof tally>} */ t) => ({
    requests: t.n,
    toolsCovered: t.tools.size,
    top1: round((100 * t.top1) / (t.n || 1), 1),
    top3: round((100 * t.top3) / (t.n || 1), 1),
    top5: round((100 * t.top5) / (t.n || 1), 1),
    mrr5: round(t.rr / (t.n || 1), 3),
  });
  return {
    ...figures(all),
    toolSets: Object.fromEntries(
      [...bySet].sort(([a], [b]) => a.localeCompare(b)).map(([s, t]) => [s, figures(t)]),
    ),
  };
}

/**
 * Per-fold figures over the whole everyday set and their mean: how much the figures move
 * from one fifth of the requests to another. The ranking has no fitted parameters, so a
 * fold's figures are those of the fixed ranking on that fold.
 * @param {EvalRequest[]} requests
 * @param {string[][]} ranked
 */
export function kFold(requests, ranked) {
  const folds = Array.from({ length: FOLDS }, (_, f) => {
    const idx = requests.map((r, i) => (foldOf(r.request) === f ? i : -1)).filter((i) => i >= 0);
    return scoreRankings(
      idx.map((i) => /** @type {EvalRequest} */ (requests[i])),
      idx.map((i) => ranked[i] ?? []),
    );
  });
  const mean = (/** @type {'top1' | 'top3' | 'top5' | 'mrr5'} */ k) =>
    round(folds.reduce((s, f) => s + (f[k] ?? 0), 0) / FOLDS, k === 'mrr5' ? 3 : 1);
  const min = (/** @type {'top1' | 'top3' | 'top5' | 'mrr5'} */ k) =>
    Math.min(...folds.map((f) => f[k] ?? 0));
  return {
    folds: FOLDS,
    mean: { top1: mean('top1'), top3: mean('top3'), top5: mean('top5'), mrr5: mean('mrr5') },
    min: { top1: min('top1'), top3: min('top3'), top5: min('top5'), mrr5: min('mrr5') },
  };
}
