// pnpm -F @toolhost/bench fit:real [--fit a,b,open+more] [--sweeps 4] [--lambda 0.005] [--no-op-fit]
//                                   [--hold-each] [--try W.area=0.6,OPERATION_FIT.count.list=1]
//
// Whether weights fitted to the questions people asked generalize better than the hand-tuned
// ones (`W` and `OPERATION_FIT` of @toolhost/search's relevance.ts): coordinate ascent over the
// weights that apply at query time, in process, each fit starting from the hand weights.
// `--fit` names the parts to fit on, one fit per comma: a part of the open half (`a`, `b`),
// `open` for both, a tuning set (`more`, `third`, `fourth`), or several joined by `+`
// (`open+more`); each fit scores every part it was not fitted on with the result (the
// cross-fit: `a` and `b`, or `open+more` and `third+fourth`). The held-out half is never read
// here. `--try` scores every part with the weights given (the others by hand) and fits nothing.
//
// Objective on the part fitted: MRR@5 plus a quarter of the top-1 share, each averaged over the
// host's catalog and the mixed one (beside other servers' tools), less `lambda` × the sum of
// the squared log-ratios of each weight to its hand value. A step is taken only where the
// project's own dev requests (eval/search-requests.json, `set: dev`) stay at or above the
// floors its test asserts. BM25's k and b, the field boosts and the set vocabulary's smoothing
// are read when an index is built (the mixed one takes seconds): they are not fitted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from './measure.mjs';
import { SEARCH_EVAL_DIR, TUNING_SETS } from './real-questions.mjs';
import { foldedIndexes, loadCatalogs, loadParts, tuningQuestions } from './real-questions-parts.mjs';

// The weights are not the package's API: the module that holds them, beside the entry point the
// index imports it from (the same module instance, so changing them here changes the ranking).
const { W, OPERATION_FIT } = /** @type {typeof import('../../search/dist/relevance.js')} */ (
  await import(new URL('./relevance.js', import.meta.resolve('@toolhost/search')).href)
);

const arg = (/** @type {string} */ name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const tried = arg('--try');
const fits = tried ? [] : (arg('--fit') ?? 'a,b').split(',');
const sweeps = Number(arg('--sweeps') ?? 4);
const lambda = Number(arg('--lambda') ?? 0.005);
const withOpFit = !process.argv.includes('--no-op-fit');
// A step must not lose on either catalog, as the hand tuning's rule had it (both gain or hold).
const holdEach = process.argv.includes('--hold-each');
// Multiplicative steps tried on each weight in turn.
const STEPS = [0.5, 0.75, 1.33, 2];
// The floors of search-eval.test.ts on the dev requests.
const DEV_FLOOR = { top1: 0.95, top3: 0.98 };

/** @typedef {{ label: string, get: () => number, set: (v: number) => void, hand: number, max: number }} Weight */

/** Every weight fitted: `W`'s entries, and `OPERATION_FIT`'s for another operation than the one asked (at most 1). */
function weights() {
  /** @type {Weight[]} */
  const out = [];
  const w = /** @type {Record<string, number>} */ (W);
  for (const key of Object.keys(w))
    out.push({
      label: `W.${key}`,
      get: () => w[key] ?? 0,
      set: (v) => (w[key] = v),
      hand: w[key] ?? 0,
      max: Infinity,
    });
  if (withOpFit)
    for (const [asked, row] of Object.entries(OPERATION_FIT)) {
      const r = /** @type {Record<string, number>} */ (row);
      for (const op of Object.keys(r))
        if (op !== asked)
          out.push({
            label: `OPERATION_FIT.${asked}.${op}`,
            get: () => r[op] ?? 0,
            set: (v) => (r[op] = v),
            hand: r[op] ?? 0,
            max: 1,
          });
    }
  return out;
}
const all = weights();
const resetToHand = () => {
  for (const w of all) w.set(w.hand);
};

const { parts } = loadParts();
// Scored as `tune:real` scores them: each tuning question by indexes that lean on the past
// requests of the others (`foldedIndexes`), as the host leans on all of them.
const folded = foldedIndexes(loadCatalogs(), tuningQuestions(parts));
const { alone, mixed } = folded.whole;
/** @type {{ request: string, tools: string[], set: 'dev' | 'holdout' }[]} */
const dev = JSON.parse(readFileSync(join(SEARCH_EVAL_DIR, 'search-requests.json'), 'utf8')).filter(
  (/** @type {{ set: string }} */ c) => c.set === 'dev',
);

/** The figures of `questions` over both catalogs, with the weights as they are now. */
function figures(/** @type {import('./real-questions.mjs').RealQuestion[]} */ questions) {
  const ownRun = folded.score(questions, 'alone');
  const mixedRun = folded.score(questions, 'mixed');
  return {
    own: ownRun.fig,
    mixed: mixedRun.fig,
    exact: [ownRun, mixedRun].map(({ ranked }) => exact(questions, ranked)),
  };
}

/** MRR@5 and the top-1 share, unrounded (a question counts at the rank of its first tool). */
function exact(
  /** @type {import('./real-questions.mjs').RealQuestion[]} */ questions,
  /** @type {string[][]} */ ranked,
) {
  let rr = 0;
  let top1 = 0;
  questions.forEach((q, i) => {
    const at = (ranked[i] ?? []).slice(0, 5).findIndex((n) => q.tools.includes(n));
    if (at >= 0) rr += 1 / (at + 1);
    if (at === 0) top1 += 1;
  });
  return { mrr5: rr / questions.length, top1: top1 / questions.length };
}

/** The dev requests' top-1 and top-3 shares over the host's catalog. */
function devFigures() {
  let top1 = 0;
  let top3 = 0;
  for (const c of dev) {
    const at = alone.search(c.request, { limit: 5 }).findIndex((m) => c.tools.includes(m.name));
    if (at === 0) top1 += 1;
    if (at >= 0 && at < 3) top3 += 1;
  }
  return { top1: top1 / dev.length, top3: top3 / dev.length };
}

/** What is maximised: MRR@5 and a quarter of top-1, averaged over the catalogs. */
function objective(/** @type {ReturnType<typeof figures>} */ f) {
  return f.exact.reduce((sum, e) => sum + (e.mrr5 + 0.25 * e.top1) / f.exact.length, 0);
}
const penalty = () => lambda * all.reduce((s, w) => s + Math.log(w.get() / w.hand) ** 2, 0);

/** Coordinate ascent from the hand weights on `questions`; leaves the fitted weights set. */
function fit(/** @type {import('./real-questions.mjs').RealQuestion[]} */ questions) {
  resetToHand();
  const perCatalog = (/** @type {ReturnType<typeof figures>} */ f) =>
    f.exact.map((e) => e.mrr5 + 0.25 * e.top1);
  let now = figures(questions);
  let best = objective(now) - penalty();
  for (let sweep = 1; sweep <= sweeps; sweep += 1) {
    let moved = 0;
    for (const w of all) {
      const start = w.get();
      let bestValue = start;
      for (const step of STEPS) {
        const v = Math.min(w.max, Math.round(start * step * 1e4) / 1e4);
        if (v === start || v === bestValue) continue;
        w.set(v);
        const f = figures(questions);
        const score = objective(f) - penalty();
        const before = perCatalog(now);
        const held = !holdEach || perCatalog(f).every((x, i) => x >= (before[i] ?? 0) - 1e-9);
        if (score > best + 1e-9 && held) {
          const d = devFigures();
          if (d.top1 >= DEV_FLOOR.top1 && d.top3 >= DEV_FLOOR.top3) {
            best = score;
            bestValue = v;
            now = f;
          }
        }
      }
      w.set(bestValue);
      if (bestValue !== start) moved += 1;
    }
    console.error(`  sweep ${sweep}: ${moved} weights moved, objective ${round(best, 4)}`);
    if (moved === 0) break;
  }
}

const row = (/** @type {string} */ label, /** @type {ReturnType<typeof figures>} */ f) =>
  `| ${label} | ${f.own.top1} % / ${f.own.top5} % / ${f.own.mrr5} | ${f.mixed.top1} % / ${f.mixed.top5} % / ${f.mixed.mrr5} |`;
const devRow = () => {
  const d = devFigures();
  return `dev requests (${dev.length}), own catalog: top-1 ${round(100 * d.top1, 1)} %, top-3 ${round(100 * d.top3, 1)} %`;
};

// The parts a fit can be made on or scored by: the open half's two, and every tuning set.
const PARTS = /** @type {PartName[]} */ (['a', 'b', ...TUNING_SETS.map((s) => s.name)]);
/** @typedef {'a' | 'b' | import('./real-questions.mjs').TuningSetName} PartName */
/** A fit's parts: `open` is both of the open half's, `a+more` the two named. */
const partsOf = (/** @type {string} */ spec) =>
  spec.split('+').flatMap((p) => (p === 'open' ? ['a', 'b'] : [p]));

// Warm-up: the first searches JIT the code.
for (const q of parts.open.slice(0, 30)) {
  alone.search(q.question);
  mixed.search(q.question);
}
resetToHand();
const hand = /** @type {Record<PartName, ReturnType<typeof figures>>} */ (
  Object.fromEntries(PARTS.map((p) => [p, figures(parts[p])]))
);
console.log(`${all.length} weights, ${sweeps} sweeps at most, lambda ${lambda}, steps ×${STEPS.join(' ×')}`);
console.log(`hand weights: ${devRow()}`);
if (tried) {
  for (const pair of tried.split(',')) {
    const [label, value] = pair.split('=');
    const w = all.find((x) => x.label === label);
    if (!w || !Number.isFinite(Number(value))) throw new Error(`--try: no weight ${pair}`);
    w.set(Number(value));
  }
  console.log(`with ${tried}: ${devRow()}`);
  console.log('| top-1 / top-5 / MRR@5 | own catalog | mixed catalog |\n|---|---|---|');
  for (const p of PARTS) {
    console.log(row(`${p}, as in relevance.ts`, hand[p]));
    console.log(row(`${p}, ${tried}`, figures(parts[p])));
  }
}
for (const spec of fits) {
  const fitted = partsOf(spec);
  for (const p of fitted)
    if (!PARTS.includes(/** @type {PartName} */ (p)))
      throw new Error(`--fit: no part ${p} (${PARTS.join(', ')}, open)`);
  const questions = fitted.flatMap((p) => parts[/** @type {PartName} */ (p)]);
  const others = PARTS.filter((p) => !fitted.includes(p));
  const rest = others.flatMap((p) => parts[p]);
  const handRest = figures(rest);
  const handFitted = figures(questions);
  console.log(`\nfit on ${spec} (${questions.length} questions)`);
  const t = performance.now();
  fit(questions);
  console.log(`took ${round((performance.now() - t) / 1000, 1)} s; fitted weights: ${devRow()}`);
  console.log('| top-1 / top-5 / MRR@5 | own catalog | mixed catalog |\n|---|---|---|');
  console.log(row(`${spec}, hand weights`, handFitted));
  console.log(row(`${spec}, fitted on ${spec} (in sample)`, figures(questions)));
  for (const p of others) {
    console.log(row(`${p} (${parts[p].length}), hand weights`, hand[p]));
    console.log(row(`**${p}, fitted on ${spec}**`, figures(parts[p])));
  }
  if (others.length > 1) {
    console.log(row(`the others (${rest.length}), hand weights`, handRest));
    console.log(row(`**the others, fitted on ${spec}**`, figures(rest)));
  }
  console.log('changed:');
  for (const w of all) if (w.get() !== w.hand) console.log(`  ${w.label} ${w.hand} → ${w.get()}`);
}
