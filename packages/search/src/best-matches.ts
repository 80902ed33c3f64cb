/**
 * The first `k` of a ranking in a strict order, without sorting what comes after them: a search
 * weighs the shapes of the hundred leading tools only (see `ToolIndex#search`), where a request of
 * common words shares a term with most of a catalog of a thousand tools.
 */

/**
 * The `k` items of `items` first in the order `compare` gives (which must tell any two items
 * apart, or say where ties go), in that order. `score` is the order's first key, higher first: the
 * items below the `k`-th best score are left out before the rest are sorted.
 */
export function bestOf<T>(
  items: T[],
  k: number,
  score: (item: T) => number,
  compare: (a: T, b: T) => number,
): T[] {
  if (k <= 0) return [];
  if (items.length <= k) return items.sort(compare);
  const scores = new Float64Array(items.length);
  for (let i = 0; i < items.length; i += 1) scores[i] = score(items[i]!);
  const least = kthLargest(scores, k);
  const kept: T[] = [];
  for (const item of items) if (score(item) >= least) kept.push(item);
  return kept.sort(compare).slice(0, k);
}

/**
 * The `k`-th largest of `values` (1 ≤ k ≤ length), by Hoare's selection: a few passes over them
 * rather than a sort. Reorders `values`.
 */
export function kthLargest(values: Float64Array, k: number): number {
  const target = values.length - k;
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i += 1;
      while (values[j]! > pivot) j -= 1;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i += 1;
        j -= 1;
      }
    }
    // What lies between j and i equals the pivot: the target is there, or on one side.
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target]!;
}
