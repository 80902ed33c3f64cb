// The open half of the questions people asked (@toolhost/search's eval/real-questions.json),
// split in two parts, the later tuning sets of such questions (`TUNING_SETS`), and the two catalogs
// they are searched in: what the tuning loop (`tune:real`) and the weight fit (`fit:real`) share.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolIndex } from '@toolhost/search';
import { percentile, round } from './measure.mjs';
import {
  loadRealQuestions,
  loadTuningSets,
  pastRequestsOf,
  SEARCH_EVAL_DIR,
  scoreQuestions,
  TUNING_SETS,
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

/** All the questions, the open half as a whole and in its two parts, and each tuning set. */
export function loadParts() {
  const all = loadRealQuestions();
  const open = all.filter((q) => q.half === 'open');
  return {
    all,
    parts: {
      a: open.filter((q) => partOf(q.id) === 'a'),
      b: open.filter((q) => partOf(q.id) === 'b'),
      open,
      ...loadTuningSets(),
    },
  };
}

/**
 * The tuning questions, the past requests the host ships: the open half and every tuning set,
 * but the sets named in `without` (to score a set with the others' past requests only).
 * @param {ReturnType<typeof loadParts>['parts']} parts
 * @param {string[]} [without]
 */
export const tuningQuestions = (parts, without = []) => [
  ...parts.open,
  ...TUNING_SETS.filter(({ name }) => !without.includes(name)).flatMap(({ name }) => parts[name]),
];

/**
 * Indexes over the host's catalog (`alone`) and the mixed one, leaning on past requests.
 * @param {{ own: SearchableTool[], foreign: SearchableTool[] }} catalogs
 * @param {import('@toolhost/search').PastRequest[]} pastRequests
 */
export function indexesWith({ own, foreign }, pastRequests) {
  return {
    alone: new ToolIndex(own, { pastRequests }),
    mixed: new ToolIndex([...own, ...foreign], { pastRequests }),
  };
}

/**
 * The tuning questions (the open half and the tuning sets) are the past requests the host ships
 * (`pastRequestsOf`); a question is never scored by an index that holds its own. `whole` holds
 * them all (for the held-out half); each of `folds` (ten, by the hash of a question's id) holds
 * all but one fold's, and `score` ranks each tuning question by its fold's: nine tenths of the
 * others stand in for all of them. With `none`, no index holds any (the ranking without them).
 * @param {{ own: SearchableTool[], foreign: SearchableTool[] }} catalogs
 * @param {RealQuestion[]} tuning
 * @param {{ folds?: number, none?: boolean }} [options]
 */
export function foldedIndexes(catalogs, tuning, { folds = 10, none = false } = {}) {
  const foldOf = (/** @type {string} */ id) => (createHash('sha256').update(id).digest()[2] ?? 0) % folds;
  const but = (/** @type {number} */ fold) =>
    none ? [] : pastRequestsOf(tuning.filter((q) => foldOf(q.id) !== fold));
  const byFold = Array.from({ length: folds }, (_, f) => indexesWith(catalogs, but(f)));
  /** @type {ReturnType<typeof indexesWith> | undefined} */
  let whole;
  return {
    /** Built at first use: `bench:search` searches the held-out half with the host's own. */
    get whole() {
      whole ??= indexesWith(catalogs, but(-1));
      return whole;
    },
    /** The indexes that score a tuning question (those of its fold). */
    indexesFor: (/** @type {RealQuestion} */ q) =>
      /** @type {ReturnType<typeof indexesWith>} */ (byFold[foldOf(q.id)]),
    /**
     * Figures of `questions` over one catalog, each question by its fold's index.
     * @param {RealQuestion[]} questions
     * @param {'alone' | 'mixed'} catalog
     */
    score(questions, catalog) {
      /** @type {string[][]} */
      const ranked = [];
      /** @type {number[]} */
      const p50s = [];
      byFold.forEach((indexes, f) => {
        const mine = questions.flatMap((q, i) => (foldOf(q.id) === f ? [i] : []));
        const r = runQuestions(
          indexes[catalog],
          mine.map((i) => /** @type {RealQuestion} */ (questions[i])),
        );
        mine.forEach((i, k) => {
          ranked[i] = r.ranked[k] ?? [];
        });
        if (mine.length > 0) p50s.push(r.p50 ?? 0);
      });
      const { toolSets: _, ...fig } = scoreQuestions(questions, ranked);
      return {
        fig,
        ranked,
        p50: round(
          percentile(
            p50s.sort((a, b) => a - b),
            50,
          ),
          2,
        ),
      };
    },
  };
}

/**
 * Each question's top five, searched by the index `indexOf` gives it, and the searches' median
 * and 99th-percentile times.
 * @param {RealQuestion[]} questions
 * @param {(q: RealQuestion) => import('@toolhost/search').ToolIndex} indexOf
 * @param {import('@toolhost/search').ToolSearchOptions} [options]
 */
export function rankQuestions(questions, indexOf, options = {}) {
  /** @type {number[]} */
  const ms = [];
  const ranked = questions.map((q) => {
    const index = indexOf(q);
    const t = performance.now();
    const names = index.search(q.question, { limit: 5, ...options }).map((m) => m.name);
    ms.push(performance.now() - t);
    return names;
  });
  ms.sort((a, b) => a - b);
  return { ranked, p50: round(percentile(ms, 50), 2), p99: round(percentile(ms, 99), 2) };
}

/**
 * Figures of `questions` over `index` (see `scoreQuestions`), and the searches' median time.
 * @param {import('@toolhost/search').ToolIndex} index
 * @param {RealQuestion[]} questions
 */
export function runQuestions(index, questions) {
  const { ranked, p50 } = rankQuestions(questions, () => index);
  const { toolSets: _, ...fig } = scoreQuestions(questions, ranked);
  return { fig, ranked, p50 };
}
