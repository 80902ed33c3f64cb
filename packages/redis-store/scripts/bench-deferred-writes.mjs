// How long adding results takes while Redis is away, with many users each at their share and
// their own oldest making room: `node scripts/bench-deferred-writes.mjs [path to a built
// deferred-writes.js]` (default: this package's dist), to set one build against another.
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';

const target = process.argv[2] ?? new URL('../dist/deferred-writes.js', import.meta.url).pathname;
const { DeferredWrites } = await import(pathToFileURL(target).href);

/** A connection that never comes back: every add waits. */
class Away extends EventEmitter {
  status = 'reconnecting';
}

const runs = 5;
const rows = [];
for (const adds of [20_000, 80_000]) {
  const times = [];
  for (let run = 0; run < runs; run += 1) {
    const away = new Away();
    const writes = new DeferredWrites(away, 64 * 1024 * 1024, {
      bytes: 16 * 1024 * 1024,
      entries: 256,
      room: 'own oldest',
    });
    const users = Math.floor(adds / 300);
    const started = performance.now();
    for (let i = 0; i < adds; i += 1)
      writes.add(
        200,
        Date.now() + 60_000 + (i % 1000),
        () => Promise.reject(new Error('away')),
        `u${i % users}`,
      );
    times.push(performance.now() - started);
    away.status = 'end';
  }
  times.sort((a, b) => a - b);
  rows.push({
    adds,
    users: Math.floor(adds / 300),
    'median ms': Math.round(times[2]),
    'min ms': Math.round(times[0]),
  });
}
console.table(rows);
process.exit(0);
