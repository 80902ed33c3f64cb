// Checks a new set of real questions against the earlier sets in packages/search/eval: against
// real-questions.json without showing that file (for each NEW entry it prints only whether its id
// or source address is already there: the held-out half must stay unseen), and against the tuning
// sets (`TUNING_SETS` of src/real-questions.mjs; those may be read, so a collision
// names the file); the new file itself is skipped if it is one of them. Then the counts of
// collisions per file and of threads repeated in the new file; exits 1 if any.
// Usage: node packages/bench/scripts/check-new-questions.mjs [new-file]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { askedIn, threadAddress, threadsOf } from '../../search/eval/question-threads.mjs';
import { TUNING_SETS } from '../src/real-questions.mjs';

const evalDir = join(dirname(fileURLToPath(import.meta.url)), '../../search/eval');
const newFile = process.argv[2] ?? join(evalDir, 'real-questions-more.json');

/** The threads of one earlier file's questions (see `threadsOf`), with its collisions counted. */
function threadsOfFile(file) {
  return { file, ...threadsOf(JSON.parse(readFileSync(join(evalDir, file), 'utf8'))), collisions: 0 };
}

const old = threadsOfFile('real-questions.json');
const tuning = TUNING_SETS.map(({ file }) => file)
  .filter((file) => existsSync(join(evalDir, file)) && resolve(evalDir, file) !== resolve(newFile))
  .map(threadsOfFile);

const fresh = JSON.parse(readFileSync(newFile, 'utf8'));
const seen = new Set();
let repeats = 0;
for (const q of fresh) {
  const hits = [old, ...tuning].filter((set) => askedIn(set, q));
  for (const set of hits) set.collisions++;
  const key = threadAddress(q.source);
  const repeated = seen.has(key);
  seen.add(key);
  if (repeated) repeats++;
  const where = hits.map((set) => (set === old ? 'IN OLD FILE' : `IN ${set.file}`)).join(', ');
  console.log(`${where || 'new        '}${repeated ? ' (repeated in new file)' : ''}  ${q.id}`);
}
const counts = [old, ...tuning].map((set) => `${set.collisions} already in ${set.file}`).join(', ');
console.log(`${fresh.length} new entries, ${counts}, ${repeats} repeated`);
const collisions = [old, ...tuning].reduce((n, set) => n + set.collisions, 0);
process.exitCode = collisions + repeats > 0 ? 1 : 0;
