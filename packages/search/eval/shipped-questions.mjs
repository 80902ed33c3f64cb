// The questions people asked that the plugins ship as past requests: every question of each
// `real-questions*.json` here but the held-out half's (which judges the ranking that leans on
// them). Read by the files of this folder rather than by a list, so that a set added here and
// not to the plugins fails the tests that compare them: @toolhost/search's evaluation and the
// conformance suite's search-catalog check.
import { readdirSync, readFileSync } from 'node:fs';

export function shippedQuestions() {
  const dir = new URL('./', import.meta.url);
  return readdirSync(dir)
    .filter((file) => /^real-questions.*\.json$/.test(file))
    .flatMap((file) => JSON.parse(readFileSync(new URL(file, dir), 'utf8')))
    .filter((q) => q.half !== 'held-out');
}
