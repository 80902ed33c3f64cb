// The open half of the questions people asked (@toolhost/search's eval/real-questions.json),
// split in two parts, the second and third sets of such questions (eval/real-questions-more.json,
// eval/real-questions-third.json), and the two catalogs they are searched in: what the tuning loop (`tune:real`) and the weight fit
// (`fit:real`) share.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile, round } from './measure.mjs';
import {
  loadMoreRealQuestions,
  loadRealQuestions,
  loadThirdRealQuestions,
  SEARCH_EVAL_DIR,
  scoreQuestions,
} from './real-questions.mjs';

/** @typedef {import('@toolhost/search').SearchableTool} SearchableTool */
/** @typedef {import('./real-questions.mjs').RealQuestion} RealQuestion */

/** The host's catalog snapshot, and the other servers' tools the mixed catalog adds to it. */
export function loadCatalogs() {
  /** @type {SearchableTool[]} */
  const own = JSON.parse(readFileSync(join(SEARCH_EVAL_DIR, 'catalog.json'), 'utf8'));
  /** @type {SearchableTool[]} */
  const foreign = JSON.parse(
    readFileSync(join(SEARCH_EVAL_DIR, 'foreign', 'foreign-tools.json'), 'utf8'),
  ).tools;
  return { own, foreign };
}

/** The tuning half's part of a question: independent of the byte that picked the half. */
const partOf = (/** @type {string} */ id) =>
  (createHash('sha256').update(id).digest()[1] ?? 0) % 2 === 0 ? 'a' : 'b';

/** All the questions, the open half as a whole and in its two parts, and the second and third sets. */
export function loadParts() {
  const all = loadRealQuestions();
  const open = all.filter((q) => q.half === 'open');
  return {
    all,
    parts: {
      a: open.filter((q) => partOf(q.id) === 'a'),
      b: open.filter((q) => partOf(q.id) === 'b'),
      open,
      more: loadMoreRealQuestions(),
      third: loadThirdRealQuestions(),
    },
  };
}

/**
 * Figures of `questions` over `index` (see `scoreQuestions`), and the searches' median time.
 * @param {import('@toolhost/search').ToolIndex} index
 * @param {RealQuestion[]} questions
 */
export function runQuestions(index, questions) {
  /** @type {number[]} */
  const ms = [];
  const ranked = questions.map((q) => {
    const t = performance.now();
    const names = index.search(q.question, { limit: 5 }).map((m) => m.name);
    ms.push(performance.now() - t);
    return names;
  });
  const { toolSets: _, ...fig } = scoreQuestions(questions, ranked);
  ms.sort((a, b) => a - b);
  return { fig, ranked, p50: round(percentile(ms, 50), 2) };
}
