import { commonEnglishWords } from './english-words.js';
import { verbOperation } from './request-intent.js';
import { processTerm } from './search-terms.js';
import { memoized } from './word-cache.js';

/** Whether `w` is `stem` with an inflection's ending ("deleted", "pulls", "images"). */
const inflects = (w: string, stem: string) =>
  w.startsWith(stem) && /^(s|es|d|ed)$/.test(w.slice(stem.length));

/** `w` with one letter left out, each way. */
function deletions(w: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < w.length; i += 1) out.push(w.slice(0, i) + w.slice(i + 1));
  return out;
}

/**
 * Corrects a misspelt word to a catalog word one edit away (a letter missing, extra, wrong, or
 * two swapped: "delte", "webhok", "recrods", "tabel"). Hand-written rather than a library: it is
 * the symmetric-delete scheme (as SymSpell) over the catalog's own words, which a general
 * dictionary would not know ("hyperdb", "scim"), in a map built once; correcting a word is then
 * a dozen look-ups, not a scan of candidates. A common English word is not corrected: one
 * letter from a catalog word, it is still far likelier another word than a slip ("unable" and
 * "enable", "render" and "sender", "stack" and "track", "reader" and a big catalog's "header");
 * but an operation's verb inflected ("deleted") still gains its bare verb, which the vocabulary
 * maps where it does not map the inflected one.
 */
export class SpellingFixer {
  private readonly words: ReadonlySet<string>;
  /** Words written as meant though the catalog lacks them (`commonEnglishWords`). */
  private readonly english = commonEnglishWords();
  /** The search terms of those words: a word whose term is one of them is an inflection, not a slip. */
  private readonly terms: ReadonlySet<string>;
  /** A word with one letter left out → the catalog word it comes from. */
  private readonly byDeletion = new Map<string, string>();

  constructor(words: Iterable<string>) {
    this.words = new Set(words);
    this.terms = new Set([...this.words].flatMap((w) => processTerm(w)));
    for (const w of this.words) {
      if (w.length < 4) continue;
      for (const d of deletions(w)) if (!this.byDeletion.has(d)) this.byDeletion.set(d, w);
    }
  }

  /**
   * The request with each corrected word added at its end, so that the words as written keep
   * their phrases ("roll back" is not "poll back"). Words of five letters or more only: a
   * shorter one is as likely a word the catalog lacks as a misspelt one.
   */
  correct(query: string): string {
    const fixes: string[] = [];
    for (const [word] of query.matchAll(/\b[a-z]{5,}\b/gi)) {
      const fix = this.correction(word.toLowerCase());
      if (fix !== '') fixes.push(fix);
    }
    return fixes.length > 0 ? `${query} ${fixes.join(' ')}` : query;
  }

  /**
   * The word a lower-case word of a request stands for, if it is misspelt ('' if not). Remembered
   * per word: a request's words are mostly words asked before, and one the catalog lacks is
   * looked up a dozen ways.
   */
  private readonly correction = memoized((w: string): string => {
    const terms = processTerm(w);
    // "defined" is "define" inflected: corrected, the word would count twice.
    if (this.words.has(w) || terms.length === 0 || terms.every((t) => this.terms.has(t))) return '';
    const fix = this.fix(w);
    // A common word is meant as written, unless the fix is its own stem ("deleted" → "delete",
    // whose sense the vocabulary knows only in the bare verb).
    if (fix && (!this.english.has(w) || (inflects(w, fix) && verbOperation(fix) !== undefined))) return fix;
    return '';
  });

  private fix(w: string): string | undefined {
    // A letter missing ("delte" is "delete" less one).
    const missing = this.byDeletion.get(w);
    if (missing) return missing;
    const ds = deletions(w);
    // A letter too many ("webhhook").
    const extra = ds.find((d) => this.words.has(d));
    if (extra) return extra;
    // Two letters swapped ("tabel"), the likeliest slip of the fingers.
    for (let i = 0; i < w.length - 1; i += 1) {
      const swapped = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
      if (this.words.has(swapped)) return swapped;
    }
    // A letter wrong: both lose a letter to the same word ("recird", "record" → "recrd").
    for (const d of ds) {
      const other = this.byDeletion.get(d);
      if (other) return other;
    }
    return undefined;
  }
}
