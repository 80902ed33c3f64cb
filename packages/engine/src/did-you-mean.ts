import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const { distance } = require('fastest-levenshtein') as typeof import('fastest-levenshtein');

/**
 * The known name closest to what a person typed, when it is close enough to be a slip: case
 * ignored (`toolsets`, `baseURL`) or a letter off, then the start of a known name (`grid-auth`
 * for `grid-auth-provider`; `tool` is `tools` a letter off, not the start of `toolSets`), then
 * a couple of letters off, or a quarter of a long name.
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const typed = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 4));
  let best: { k: string; d: number } | undefined;
  let started: string | undefined;
  for (const k of known) {
    if (typed.length >= 3 && k.toLowerCase().startsWith(typed) && (!started || k.length < started.length))
      started = k;
    // At least the difference in length apart: a name of a megabyte cost seconds of distances.
    if (Math.abs(k.length - typed.length) > limit) continue;
    const d = distance(typed, k.toLowerCase());
    if (!best || d < best.d) best = { k, d };
  }
  if (best && best.d <= 1) return best.k;
  return started ?? (best && best.d <= limit ? best.k : undefined);
}

/** ` Did you mean X?`, or nothing when no known name is close. */
export function didYouMean(name: string, known: Iterable<string>, quote = ''): string {
  const match = closest(name, known);
  return match ? ` Did you mean ${quote}${match}${quote}?` : '';
}
