// The questions people asked in public (@toolhost/search's eval/real-questions.json), scored per
// half: the open half with its figures per tool set, the held-out half as totals only, since
// nothing more of it may be looked at (see that file's test). Later sets of such questions
// (`TUNING_SETS`: eval/real-questions-more.json, -third.json, -fourth.json, -fifth.json,
// -sixth.json, -seventh.json, -eighth.json, all `"half": "tuning"`) are for tuning beside the open
// half; the third leans toward the HubSpot and Customer.io tool sets the first two hold few
// questions for, the fourth toward tools no earlier set asked about, the fifth toward the threads
// of integrations and connectors the earlier ones missed, the sixth toward the requests of the apps
// and sites built on these APIs, the seventh toward the threads of the smaller client libraries and
// of the apps' syncs, the eighth toward the sites and small apps that keep their forms' answers and
// their content in Airtable, and the static-site generators' Airtable sources.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { scoreRankings } from './search-eval.mjs';

/** The search package's evaluation data (its catalog snapshot, the real questions). */
export const SEARCH_EVAL_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@toolhost/search/package.json')),
  'eval',
);
export const REAL_QUESTIONS_FILE = 'real-questions.json';

/**
 * The tuning sets, in the order they were gathered: the one place that names them. Each one's
 * name is its part in `tune:real` (`--part`, `--set`) and its rows' group in `bench:search`.
 */
export const TUNING_SETS = /** @type {const} */ ([
  { name: 'more', file: 'real-questions-more.json' },
  { name: 'third', file: 'real-questions-third.json' },
  { name: 'fourth', file: 'real-questions-fourth.json' },
  { name: 'fifth', file: 'real-questions-fifth.json' },
  { name: 'sixth', file: 'real-questions-sixth.json' },
  { name: 'seventh', file: 'real-questions-seventh.json' },
  { name: 'eighth', file: 'real-questions-eighth.json' },
]);
/** @typedef {typeof TUNING_SETS[number]['name']} TuningSetName */

/** @typedef {'open' | 'held-out' | 'tuning'} Half */
/** @typedef {{ id: string, question: string, tools: string[], source: string, half: Half }} RealQuestion */

/** @returns {RealQuestion[]} */
export function loadRealQuestions(file = REAL_QUESTIONS_FILE) {
  return JSON.parse(readFileSync(join(SEARCH_EVAL_DIR, file), 'utf8'));
}

/**
 * Each tuning set's questions (every one's half is `tuning`), by the set's name.
 * @returns {Record<TuningSetName, RealQuestion[]>}
 */
export function loadTuningSets() {
  return /** @type {Record<TuningSetName, RealQuestion[]>} */ (
    Object.fromEntries(TUNING_SETS.map(({ name, file }) => [name, loadRealQuestions(file)]))
  );
}

/**
 * Questions as the past requests a host ships with its tool sets (`ToolIndexOptions.pastRequests`):
 * one per tool set a question's tools belong to, as each plugin declares its own. Never the
 * held-out half's.
 * @param {RealQuestion[]} questions
 * @returns {import('@toolhost/search').PastRequest[]}
 */
export function pastRequestsOf(questions) {
  return questions
    .filter((q) => q.half !== 'held-out')
    .flatMap((q) =>
      [...new Set(q.tools.map((t) => t.split('.')[0]))].map((set) => ({
        request: q.question,
        tools: q.tools.filter((t) => t.startsWith(`${set}.`)),
        source: q.source,
      })),
    );
}

/**
 * Figures of `questions` ranked as `ranked`, with their figures per tool set. A question counts
 * as answered at the rank of the first of its tools that the ranking names (any of them answers it).
 * @param {RealQuestion[]} questions
 * @param {string[][]} ranked canonical names (`Set.Tool`) per question, best first
 */
export function scoreQuestions(questions, ranked) {
  const requests = questions.map((q, i) => {
    const found = (ranked[i] ?? []).slice(0, 5).find((n) => q.tools.includes(n));
    return { request: q.question, tool: found ?? /** @type {string} */ (q.tools[0]) };
  });
  return scoreRankings(
    requests,
    questions.map((_, i) => ranked[i] ?? []),
  );
}

/**
 * Figures of the questions that `keep` keeps (see `scoreQuestions`).
 * @param {RealQuestion[]} questions
 * @param {string[][]} ranked canonical names (`Set.Tool`) per question, best first
 * @param {(q: RealQuestion, i: number) => boolean} keep
 */
export function scoreWhere(questions, ranked, keep) {
  const idx = questions.map((q, i) => (keep(q, i) ? i : -1)).filter((i) => i >= 0);
  return scoreQuestions(
    idx.map((i) => /** @type {RealQuestion} */ (questions[i])),
    idx.map((i) => ranked[i] ?? []),
  );
}

/**
 * Figures of the questions of one half (see `scoreQuestions`).
 * @param {RealQuestion[]} questions
 * @param {string[][]} ranked canonical names (`Set.Tool`) per question, best first
 * @param {Half} half
 */
export const scoreHalf = (questions, ranked, half) => scoreWhere(questions, ranked, (q) => q.half === half);

/**
 * Figures of each half of real-questions.json: the held-out half as totals only.
 * @param {RealQuestion[]} questions
 * @param {string[][]} ranked canonical names (`Set.Tool`) per question, best first
 */
export function scoreRealQuestions(questions, ranked) {
  const { toolSets: _perSet, ...heldOut } = scoreHalf(questions, ranked, 'held-out');
  return { file: REAL_QUESTIONS_FILE, open: scoreHalf(questions, ranked, 'open'), heldOut };
}
