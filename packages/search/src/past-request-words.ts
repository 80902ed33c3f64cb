import MiniSearch from 'minisearch';
import { bestOf } from './best-matches.js';
import { isPhrase, type ReadRequest } from './past-requests.js';
import { W } from './relevance.js';
import { type Bm25, TermPostings, type TextMatch } from './term-postings.js';

/**
 * Each tool's text expanded with the words of the past requests it answered (document expansion
 * by a query log): people name a tool by what they build with it and what went wrong ("an
 * Airtable data loader", "the view param isn't working"), words its description never says, and
 * what they said of one tool before is how the next person will ask for it. Where the nearest
 * past requests (`PastRequests`) speak for single requests like this one, and only where the
 * ranking is unsure, these speak for each tool's requests together, as a word of its text.
 *
 * Only the words a tool's own text (name, description, parameters, path) does not say are
 * added: the past requests would otherwise say a tool's own words again, as many times as it
 * was asked for, and the tools people ask most about would outweigh, on the catalog's own
 * words, the one a plain request names ("log ad spend on a campaign" is not about listing
 * campaigns). Chosen on the real questions' tuning sets by folds: with every word added the sets
 * gained more but the hand-written requests lost; with new words only they held.
 *
 * A word counts once per past request that says it: one said by thirty of a tool's requests is
 * more its word than one said once, as far as BM25's saturation allows, and a tool asked about
 * in many words has a long text that weighs each less.
 */
export class PastRequestWords {
  private readonly text: TermPostings | undefined;

  /**
   * @param requests the past requests as read (`readPastRequests`)
   * @param text the index of the tools' own text (see `ownTerms`)
   * @param size how many tools the catalog has
   */
  constructor(requests: readonly ReadRequest[], text: TermPostings, size: number, bm25: Bm25) {
    const words = askedWords(requests, ownTerms(text, size));
    if (words.every((terms) => terms.length === 0)) return;
    // The terms are search terms already: split on spaces and kept as they are.
    const index = new MiniSearch<{ id: number; asked: string }>({
      fields: ['asked'],
      tokenize: (text) => text.split(' ').filter((t) => t.length > 0),
      processTerm: (term) => term,
    });
    index.addAll(words.map((terms, id) => ({ id, asked: terms.join(' ') })));
    this.text = new TermPostings(index, { asked: 1 }, bm25);
  }

  /**
   * The `limit` best of `own`, the tools' text scores (unsorted, as `TermPostings#matches` finds
   * them), with what their past requests' words that `terms` say add, times `W.pastWords`, best
   * first; a tool only those words match is found too. Of equal scores, a tool found by its own
   * text comes first, the better by its own text first, then the one found first; then those
   * found by the past requests' words alone, alike: the order a stable sort of the tools by their
   * own text, then of the others by their past requests' words, would leave ties in.
   */
  bestWith(
    own: readonly TextMatch[],
    terms: readonly string[],
    weight: (term: string) => number,
    keep: (id: number) => boolean,
    limit: number,
  ): TextMatch[] {
    const ranked: Summed[] = own.map((r, at) => ({ id: r.id, score: r.score, alone: 0, first: r.score, at }));
    const asked = this.text?.matches(terms, weight, keep) ?? [];
    if (asked.length > 0) {
      const byId = new Map(ranked.map((r) => [r.id, r]));
      asked.forEach((r, at) => {
        const summed = byId.get(r.id);
        if (summed) summed.score += W.pastWords * r.score;
        else ranked.push({ id: r.id, score: W.pastWords * r.score, alone: 1, first: r.score, at });
      });
    }
    return bestOf(ranked, limit, (r) => r.score, inOrder).map(({ id, score }) => ({ id, score }));
  }

  /** The tools whose past requests' words share a term with `terms`, best first (see `TermPostings#search`). */
  search(
    terms: readonly string[],
    weight: (term: string) => number,
    keep: (id: number) => boolean,
  ): TextMatch[] {
    return this.text?.search(terms, weight, keep) ?? [];
  }
}

/**
 * A tool's summed text score, and where it stood before the sum: found by the past requests'
 * words `alone` (1) or by its own text (0), its `first` score there and the place it was `at`.
 */
interface Summed extends TextMatch {
  alone: number;
  first: number;
  at: number;
}

const inOrder = (a: Summed, b: Summed) =>
  b.score - a.score || a.alone - b.alone || b.first - a.first || a.at - b.at;

/**
 * Per tool id, the search terms of the past requests it answered that its own text does not say,
 * each as many times as past requests say it.
 */
export function askedWords(
  requests: readonly ReadRequest[],
  ownTerms: readonly ReadonlySet<string>[],
): string[][] {
  const words: string[][] = ownTerms.map(() => []);
  for (const r of requests) {
    // Words, not the phrases the nearest past requests are also compared by.
    const terms = r.terms.filter((t) => !isPhrase(t));
    for (const id of new Set(r.tools)) for (const t of terms) if (!ownTerms[id]!.has(t)) words[id]!.push(t);
  }
  return words;
}

/** Per tool id, the search terms of its own text, in any field of `text`. */
export function ownTerms(text: TermPostings, size: number): Set<string>[] {
  const own = Array.from({ length: size }, () => new Set<string>());
  for (const [term, lists] of text.documents())
    for (const docs of lists) for (const d of docs) own[d]!.add(term);
  return own;
}
