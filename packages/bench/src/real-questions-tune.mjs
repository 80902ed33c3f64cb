// pnpm -F @toolhost/bench tune:real [--part a|b|open|more|third|fourth|fifth|sixth|seventh|eighth]
//                                    [--set more|third|fourth|fifth|sixth|seventh|eighth]
//                                    [--fresh fourth] [--quiet] [--held-out]
//
// Tuning loop for the ranking on the questions people asked (@toolhost/search's
// eval/real-questions.json), in process over the catalog snapshot: the OPEN half only, split in
// two parts (a, b) by the second byte of the SHA-256 of each question's id, so a change tuned on
// one part can be checked on the other before it is kept; and the tuning sets of such questions
// gathered later (`TUNING_SETS` of real-questions.mjs: parts `more`, `third`, `fourth`, `fifth`,
// `sixth`, `seventh`, `eighth`).
// Prints each part's figures over the host's catalog and the mixed one, and the misses of
// `--part` (default a; `--set S` is `--part S` for a tuning set). `--held-out` adds the held-out
// half's totals, never anything per question of it: for the final check only.
//
// The tuning questions are also the past requests the host ships (the plugins' generated
// `pastRequests`), so each is scored without its own (see `foldedIndexes`); the held-out half
// with all of them, as the host has them. `--no-past` scores the ranking without any; `--fresh S`
// (comma-separated) leaves those tuning sets out of the past requests, so they are scored with the
// others' only, as a set freshly gathered is.
import { round } from './measure.mjs';
import { TUNING_SETS } from './real-questions.mjs';
import {
  foldedIndexes,
  loadCatalogs,
  loadParts,
  runQuestions as run,
  tuningQuestions,
} from './real-questions-parts.mjs';

const arg = (/** @type {string} */ name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const set = arg('--set');
const showPart = TUNING_SETS.some(({ name }) => name === set) ? set : (arg('--part') ?? 'a');
const fresh = arg('--fresh')?.split(',') ?? [];
const quiet = process.argv.includes('--quiet');

const catalogs = loadCatalogs();
const { all, parts } = loadParts();
const t0 = performance.now();
const indexes = foldedIndexes(catalogs, tuningQuestions(parts, fresh), {
  none: process.argv.includes('--no-past'),
});
const { whole } = indexes;
const t1 = performance.now();

// Warm-up: the first searches JIT the code.
for (const q of parts.open.slice(0, 30)) {
  whole.alone.search(q.question);
  whole.mixed.search(q.question);
}
for (const [name, qs] of Object.entries(parts)) {
  const own1 = indexes.score(qs, 'alone');
  const mix = indexes.score(qs, 'mixed');
  console.log(
    `${name.padEnd(6)} own ${JSON.stringify(own1.fig)} p50 ${own1.p50} ms\n       mixed ${JSON.stringify(mix.fig)} p50 ${mix.p50} ms`,
  );
}
console.log(`index build (own and mixed, eleven times): ${round(t1 - t0, 1)} ms`);
if (process.argv.includes('--held-out')) {
  const held = all.filter((q) => q.half === 'held-out');
  console.log(`held-out own   ${JSON.stringify(run(whole.alone, held).fig)}`);
  console.log(`held-out mixed ${JSON.stringify(run(whole.mixed, held).fig)}`);
}
if (!quiet) {
  const qs = parts[/** @type {keyof typeof parts} */ (showPart)] ?? [];
  for (const catalog of /** @type {const} */ (['alone', 'mixed'])) {
    const { ranked } = indexes.score(qs, catalog);
    qs.forEach((q, i) => {
      const got = ranked[i] ?? [];
      if (!q.tools.includes(got[0] ?? ''))
        console.log(
          `MISS ${catalog === 'alone' ? 'own' : 'mixed'} ${got.findIndex((n) => q.tools.includes(n))} ${q.question}\n    want ${q.tools.join(' ')}\n    got  ${got.slice(0, 3).join(' ')}`,
        );
    });
  }
}
