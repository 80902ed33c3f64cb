// pnpm -F @toolhost/bench bench:search
//
// search_tools' ranking in process, without a transport: the questions people asked in public
// (@toolhost/search's eval/real-questions.json, the held-out half as totals only; and the
// tuning sets gathered later, `TUNING_SETS` of real-questions.mjs, as totals beside the two
// halves) over the
// host's catalog, then over a mixed catalog, the host's tools beside 1,167 tools of other public
// servers and specs (eval/foreign): does the right toolhost tool still come first, how often
// does a stranger take the first place, and does a search kept to the host's own tool sets ever
// return a stranger. Prints tables; timing is reported, never asserted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '@toolhost/host';
import {
  loadRealQuestions,
  loadTuningSets,
  SEARCH_EVAL_DIR,
  scoreRealQuestions,
  scoreWhere,
  TUNING_SETS,
} from './real-questions.mjs';
import { foldedIndexes, indexesWith, rankQuestions } from './real-questions-parts.mjs';
import { table } from './report.mjs';

/** @typedef {import('@toolhost/search').SearchableTool} SearchableTool */

const host = await createHost({
  auth: { providers: { 'crm-auth-provider': { token: 'x' }, 'grid-auth-provider': { token: 'x' } } },
});
const own = host.listTools();
const ownSets = [...new Set(own.map((t) => t.toolSet))];
/** @type {{ origins: { toolSet: string, tools: number, licence: string }[], tools: SearchableTool[] }} */
const foreign = JSON.parse(readFileSync(join(SEARCH_EVAL_DIR, 'foreign', 'foreign-tools.json'), 'utf8'));
/** @typedef {import('./real-questions.mjs').Half} Half */
// All the sets in one list: each question is scored only within its group, its half (`open`,
// `held-out`) for the first set, its set's name (`more`, `third`, `fourth`, `fifth`, `sixth`,
// `seventh`, `eighth`) for the tuning sets, so no set mixes into another's figures.
const first = loadRealQuestions();
const bySet = loadTuningSets();
const tuningSets = TUNING_SETS.map(({ name, file }) => /** @type {const} */ ([name, file, bySet[name]]));
const questions = [...first, ...tuningSets.flatMap(([, , qs]) => qs)];
/** @typedef {Half | import('./real-questions.mjs').TuningSetName} Group */
/** @type {Group[]} */
const groups = [...first.map((q) => q.half), ...tuningSets.flatMap(([set, , qs]) => qs.map(() => set))];

// The host searches leaning on the past requests its plugins ship: the questions of every set but
// the held-out half. The held-out half is searched with them all, as the host has them; a tuning
// question by indexes without its own (ten folds, `foldedIndexes`), never answering itself.
const catalogs = { own, foreign: foreign.tools };
const shipped = indexesWith(catalogs, [...host.serving.pastRequests]);
const folded = foldedIndexes(
  catalogs,
  questions.filter((q) => q.half !== 'held-out'),
);
/** The indexes that search a question. */
const indexesFor = (/** @type {import('./real-questions.mjs').RealQuestion} */ q) =>
  q.half === 'held-out' ? shipped : folded.indexesFor(q);

/**
 * Each question's top five over one catalog, and the time each search took.
 * @param {'alone' | 'mixed'} catalog
 * @param {import('@toolhost/search').ToolSearchOptions} [options]
 */
function rankAll(catalog, options = {}) {
  // Warm-up: the first searches JIT the code.
  for (const q of questions.slice(0, 30)) indexesFor(q)[catalog].search(q.question, { limit: 5, ...options });
  return rankQuestions(questions, (q) => indexesFor(q)[catalog], options);
}

const isForeign = (/** @type {string} */ name) => !ownSets.includes(name.split('.')[0] ?? '');
/** How many questions of a group got a foreign tool first, or any foreign tool at all. */
function strangers(/** @type {string[][]} */ ranked, /** @type {Group} */ group) {
  const mine = ranked.filter((_, i) => groups[i] === group);
  return {
    first: mine.filter((r) => r[0] !== undefined && isForeign(r[0])).length,
    any: mine.filter((r) => r.some(isForeign)).length,
  };
}

const alone = rankAll('alone');
const mixed = rankAll('mixed');
const kept = rankAll('mixed', { toolSets: ownSets });
const aloneScore = scoreRealQuestions(questions, alone.ranked);
const mixedScore = scoreRealQuestions(questions, mixed.ranked);
const keptScore = scoreRealQuestions(questions, kept.ranked);
/** A tuning set's totals, like the halves' rows (its figures per tool set: `tune:real --set more|third|fourth|fifth|sixth|seventh|eighth`). */
const tuning = (/** @type {string[][]} */ ranked, /** @type {Group} */ set) => {
  const { toolSets: _perSet, ...totals } = scoreWhere(questions, ranked, (_, i) => groups[i] === set);
  return totals;
};

const row = (
  /** @type {string} */ label,
  /** @type {{ requests: number, top1?: number, top3?: number, top5?: number, mrr5?: number }} */ f,
  /** @type {string} */ extra = '–',
) => [label, f.requests, `${f.top1}%`, `${f.top3}%`, `${f.top5}%`, f.mrr5, extra];
const strange = (/** @type {string[][]} */ r, /** @type {Group} */ h) => {
  const s = strangers(r, h);
  return `${s.first} first, ${s.any} in top 5`;
};

console.log(
  `catalog: ${own.length} toolhost tools; mixed: + ${foreign.tools.length} foreign tools (${foreign.origins
    .map((o) => `${o.toolSet} ${o.tools}, ${o.licence}`)
    .join('; ')})\n`,
);
console.log(
  table(
    ['real questions (eval/)', 'questions', 'top-1', 'top-3', 'top-5', 'MRR@5', 'foreign tools'],
    [
      row('**held-out half**, toolhost catalog', aloneScore.heldOut),
      row('**held-out half**, mixed catalog', mixedScore.heldOut, strange(mixed.ranked, 'held-out')),
      row(
        '**held-out half**, mixed, own tool sets only',
        keptScore.heldOut,
        strange(kept.ranked, 'held-out'),
      ),
      row('open half, toolhost catalog', aloneScore.open),
      row('open half, mixed catalog', mixedScore.open, strange(mixed.ranked, 'open')),
      row('open half, mixed, own tool sets only', keptScore.open, strange(kept.ranked, 'open')),
      ...tuningSets.flatMap(([set, file]) => [
        row(`${set} tuning set (${file}), toolhost catalog`, tuning(alone.ranked, set)),
        row(
          `${set} tuning set (${file}), mixed catalog`,
          tuning(mixed.ranked, set),
          strange(mixed.ranked, set),
        ),
        row(
          `${set} tuning set (${file}), mixed, own tool sets only`,
          tuning(kept.ranked, set),
          strange(kept.ranked, set),
        ),
      ]),
    ],
  ),
);
console.log('');
console.log(
  table(
    ['search latency (in process, per question)', 'p50', 'p99'],
    [
      ['toolhost catalog', `${alone.p50} ms`, `${alone.p99} ms`],
      ['mixed catalog', `${mixed.p50} ms`, `${mixed.p99} ms`],
    ],
  ),
);
await host.close();
