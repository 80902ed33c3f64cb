// Checks a new set of real questions against packages/search/eval/real-questions.json without
// showing the old file: for each NEW entry it prints only whether its id or source address is
// already there (the held-out half must stay unseen), then the count of collisions.
// Usage: node packages/bench/scripts/check-new-questions.mjs [new-file]
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const evalDir = join(dirname(fileURLToPath(import.meta.url)), '../../search/eval');
const newFile = process.argv[2] ?? join(evalDir, 'real-questions-more.json');

/** An address compared without scheme, `www.`, case, trailing slash or `#fragment`. */
function normalizeSource(url) {
  return String(url)
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/#.*$/, '')
    .replace(/\?.*$/, '')
    .replace(/\/+$/, '');
}

/** An id compared without case, a pull request's `owner/repo!N` as `owner/repo#N` (GitHub numbers both alike). */
function normalizeId(id) {
  return String(id)
    .trim()
    .toLowerCase()
    .replace(/!(\d+)$/, '#$1');
}

function githubId(url) {
  const m = normalizeSource(url).match(/^github\.com\/([^/]+\/[^/]+)\/(?:issues|pull|discussions)\/(\d+)/);
  return m ? `${m[1]}#${m[2]}` : undefined;
}

const old = JSON.parse(readFileSync(join(evalDir, 'real-questions.json'), 'utf8'));
const oldIds = new Set();
const oldSources = new Set();
for (const q of old) {
  oldIds.add(normalizeId(q.id));
  oldSources.add(normalizeSource(q.source));
  const gid = githubId(q.source);
  if (gid) oldIds.add(gid);
}

const fresh = JSON.parse(readFileSync(newFile, 'utf8'));
let collisions = 0;
const seen = new Set();
let repeats = 0;
for (const q of fresh) {
  const ids = [normalizeId(q.id), githubId(q.source)].filter(Boolean);
  const hit = ids.some((i) => oldIds.has(i)) || oldSources.has(normalizeSource(q.source));
  const key = normalizeSource(q.source);
  const repeated = seen.has(key);
  seen.add(key);
  if (hit) collisions++;
  if (repeated) repeats++;
  console.log(`${hit ? 'IN OLD FILE' : 'new        '}${repeated ? ' (repeated in new file)' : ''}  ${q.id}`);
}
console.log(`${fresh.length} new entries, ${collisions} already in real-questions.json, ${repeats} repeated`);
process.exitCode = collisions + repeats > 0 ? 1 : 0;
