// Tuning loop for search_tools' ranking, in process: figures of the everyday set's TUNING part
// (and the old sets), with the misses. `--part test` prints the test part's figures only, no
// misses: for the final check, never while tuning.
import { createHost, ToolIndex } from '@toolhost/host';
import { EVERYDAY_FILE, loadRequests, partOf, scoreRankings } from './search-eval.mjs';

const part = process.argv.includes('--part') ? process.argv[process.argv.indexOf('--part') + 1] : 'tune';
const quiet = process.argv.includes('--quiet');
const host = await createHost({
  auth: { providers: { 'crm-auth-provider': { token: 'x' }, 'grid-auth-provider': { token: 'x' } } },
});
const index = new ToolIndex(host.listTools());
const everyday = loadRequests(EVERYDAY_FILE).filter((r) => partOf(r.request) === part);
const rank = (/** @type {import('./search-eval.mjs').EvalRequest[]} */ reqs) =>
  reqs.map((r) => index.search(r.request, { limit: 5 }).map((m) => m.name));
const ranked = rank(everyday);
const fig = scoreRankings(everyday, ranked);
console.log(`everyday ${part}:`, JSON.stringify({ ...fig, toolSets: undefined }));
for (const [s, f] of Object.entries(fig.toolSets)) console.log(`  ${s}`, JSON.stringify(f));
if (part === 'tune') {
  for (const file of [
    'tool-search-requests.json',
    'tool-search-holdout.json',
    'tool-search-holdout-2.json',
  ]) {
    const reqs = loadRequests(file);
    const f = scoreRankings(reqs, rank(reqs));
    console.log(file, JSON.stringify({ ...f, toolSets: undefined }));
  }
  if (!quiet)
    everyday.forEach((r, i) => {
      const got = ranked[i] ?? [];
      if (got[0] !== r.tool)
        console.log(
          `MISS ${got.indexOf(r.tool)} ${r.request}\n    want ${r.tool}\n    got  ${got.slice(0, 3).join(' ')}`,
        );
    });
}
await host.close();
