import { describe, expect, it } from 'vitest';
import { bestOf, kthLargest } from './best-matches.js';

// A small generator of its own, so that a failure repeats.
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('bestOf', () => {
  it('finds the k-th largest value, however many are equal', () => {
    const next = random(7);
    for (let n = 1; n < 60; n += 1)
      for (const levels of [1, 3, 1000]) {
        const values = Float64Array.from({ length: n }, () => Math.floor(next() * levels));
        const sorted = Float64Array.from(values).sort();
        for (let k = 1; k <= n; k += 1) expect(kthLargest(Float64Array.from(values), k)).toBe(sorted[n - k]);
      }
  });

  it('gives the first k of a stable sort by score, ties in their first order', () => {
    const next = random(11);
    for (let n = 0; n < 300; n += 7) {
      const items = Array.from({ length: n }, (_, at) => ({ score: Math.floor(next() * 20) / 4, at }));
      const sorted = [...items].sort((a, b) => b.score - a.score);
      for (const k of [0, 1, 5, 100, 400]) {
        const best = bestOf(
          [...items],
          k,
          (item) => item.score,
          (a, b) => b.score - a.score || a.at - b.at,
        );
        expect(best).toEqual(sorted.slice(0, k));
      }
    }
  });
});
