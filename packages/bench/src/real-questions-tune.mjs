// pnpm -F @toolhost/bench tune:real [--part a|b|open|more] [--set more] [--quiet] [--held-out]
//
// Tuning loop for the ranking on the questions people asked (@toolhost/search's
// eval/real-questions.json), in process over the catalog snapshot: the OPEN half only, split in
// two parts (a, b) by the second byte of the SHA-256 of each question's id, so a change tuned on
// one part can be checked on the other before it is kept; and the second set of such questions
// (eval/real-questions-more.json, part `more`), gathered later for tuning beyond the open half.
// Prints each part's figures over the host's catalog and the mixed one, and the misses of
// `--part` (default a; `--set more` is `--part more`). `--held-out` adds the held-out half's
// totals, never anything per question of it: for the final check only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolIndex } from '@toolhost/search';
import { percentile, round } from './measure.mjs';
import { loadMoreRealQuestions, loadRealQuestions, SEARCH_EVAL_DIR } from './real-questions.mjs';
import { scoreRankings } from './search-eval.mjs';

const arg = (/** @type {string} */ name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const showPart = arg('--set') === 'more' ? 'more' : (arg('--part') ?? 'a');
const quiet = process.argv.includes('--quiet');

/** @typedef {import('@toolhost/search').SearchableTool} SearchableTool */
/** @type {SearchableTool[]} */
const own = JSON.parse(readFileSync(join(SEARCH_EVAL_DIR, 'catalog.json'), 'utf8'));
/** @type {SearchableTool[]} */
const foreign = JSON.parse(
  readFileSync(join(SEARCH_EVAL_DIR, 'foreign', 'foreign-tools.json'), 'utf8'),
).tools;
const all = loadRealQuestions();
const open = all.filter((q) => q.half === 'open');
const more = loadMoreRealQuestions();
/** The tuning half's part of a question: independent of the byte that picked the half. */
const partOf = (/** @type {string} */ id) =>
  (createHash('sha256').update(id).digest()[1] ?? 0) % 2 === 0 ? 'a' : 'b';

const t0 = performance.now();
const alone = new ToolIndex(own);
const t1 = performance.now();
const mixed = new ToolIndex([...own, ...foreign]);
const t2 = performance.now();

/**
 * Figures of `questions` over `index`; a question counts at the rank of the first of its tools.
 * @param {ToolIndex} index
 * @param {import('./real-questions.mjs').RealQuestion[]} questions
 */
function run(index, questions) {
  /** @type {number[]} */
  const ms = [];
  const ranked = questions.map((q) => {
    const t = performance.now();
    const names = index.search(q.question, { limit: 5 }).map((m) => m.name);
    ms.push(performance.now() - t);
    return names;
  });
  const requests = questions.map((q, i) => ({
    request: q.question,
    tool: (ranked[i] ?? []).find((n) => q.tools.includes(n)) ?? /** @type {string} */ (q.tools[0]),
  }));
  const { toolSets: _, ...fig } = scoreRankings(requests, ranked);
  ms.sort((a, b) => a - b);
  return { fig, ranked, p50: round(percentile(ms, 50), 2) };
}

// Warm-up: the first searches JIT the code.
for (const q of open.slice(0, 30)) {
  alone.search(q.question);
  mixed.search(q.question);
}
const parts = {
  a: open.filter((q) => partOf(q.id) === 'a'),
  b: open.filter((q) => partOf(q.id) === 'b'),
  open,
  more,
};
for (const [name, qs] of Object.entries(parts)) {
  const own1 = run(alone, qs);
  const mix = run(mixed, qs);
  console.log(
    `${name.padEnd(5)} own ${JSON.stringify(own1.fig)} p50 ${own1.p50} ms\n      mixed ${JSON.stringify(mix.fig)} p50 ${mix.p50} ms`,
  );
}
console.log(`index build: own ${round(t1 - t0, 1)} ms, mixed ${round(t2 - t1, 1)} ms`);
if (process.argv.includes('--held-out')) {
  const held = all.filter((q) => q.half === 'held-out');
  console.log(`held-out own   ${JSON.stringify(run(alone, held).fig)}`);
  console.log(`held-out mixed ${JSON.stringify(run(mixed, held).fig)}`);
}
if (!quiet) {
  const qs = parts[/** @type {keyof typeof parts} */ (showPart)] ?? [];
  for (const [label, index] of /** @type {const} */ ([
    ['own', alone],
    ['mixed', mixed],
  ])) {
    const { ranked } = run(index, qs);
    qs.forEach((q, i) => {
      const got = ranked[i] ?? [];
      if (!q.tools.includes(got[0] ?? ''))
        console.log(
          `MISS ${label} ${got.findIndex((n) => q.tools.includes(n))} ${q.question}\n    want ${q.tools.join(' ')}\n    got  ${got.slice(0, 3).join(' ')}`,
        );
    });
  }
}
