import { stemmer } from 'stemmer';

/**
 * Functions of one word remembered per word. A search reads the same few words many times over
 * (its intent, its title, its terms for the text, for the past requests and for their phrases),
 * and stemming or mapping a word (`processTerm`) is the same work each time: done once, a word
 * costs a look-up. Whatever a catalog says was read when its index was built, so a search mostly
 * finds its words already done.
 */

// Enough for a big catalog's vocabulary and many requests' words; past it, the cache starts
// over rather than grow with every word a long-running host is ever asked.
const MAX_WORDS = 50_000;

/**
 * `fn` remembered per argument, for `max` arguments at most; `fn` must be pure, and its result is
 * shared, so never changed.
 */
export function memoized<T>(fn: (word: string) => T, max = MAX_WORDS): (word: string) => T {
  const cache = new Map<string, T>();
  return (word) => {
    let value = cache.get(word);
    if (value === undefined) {
      if (cache.size >= max) cache.clear();
      value = fn(word);
      cache.set(word, value);
    }
    return value;
  };
}

/** A word's stem (Porter's stemmer), remembered. */
export const stem: (word: string) => string = memoized(stemmer);
