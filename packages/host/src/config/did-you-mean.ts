import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const { distance } = require('fastest-levenshtein') as typeof import('fastest-levenshtein');

/**
 * The known name closest to what a person typed, when it is close enough to be a slip: case
 * ignored (`toolsets`, `baseURL`), then a letter or two off, or a quarter of a long name, or
 * the start of a known name (`grid-auth` for `grid-auth-provider`).
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const typed = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 4));
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    if (typed.length >= 3 && k.toLowerCase().startsWith(typed)) return k;
    // At least the difference in length apart: a name of a megabyte cost seconds of distances.
    if (Math.abs(k.length - typed.length) > limit) continue;
    const d = distance(typed, k.toLowerCase());
    if (!best || d < best.d) best = { k, d };
  }
  return best && best.d <= limit ? best.k : undefined;
}

/** ` Did you mean X?`, or nothing when no known name is close. */
export function didYouMean(name: string, known: Iterable<string>, quote = ''): string {
  const match = closest(name, known);
  return match ? ` Did you mean ${quote}${match}${quote}?` : '';
}
