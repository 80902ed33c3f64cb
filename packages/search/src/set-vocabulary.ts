/**
 * How much of a request's vocabulary each tool set speaks, as resource selection in federated
 * search does it: a request about a product uses several of its words ("records" of a "table"
 * "filtered by formula" in a "view"), where a tool set that shares one of them by chance (DNS
 * "records") speaks few. Each term counts by its rarity among all tools and by the share of the
 * set's tools that use it. Built over the words of the tools' text, or over the objects they act
 * on (their shapes' heads), which a set's boilerplate words do not reach.
 */
// Tools added to each set's size before its share of a term is taken: two tools of two that say
// "record" are weaker evidence of a records product than thirty of ninety.
const SMOOTHING = 2;
// The share of a set's tools that must say a term for the set to count as speaking it when the
// term's spread over the sets is taken: one tool in fifty mentioning "value" in passing does not.
const SPOKEN = 0.02;

export interface SetVocabularyOptions {
  /**
   * Weigh each term also by how few tool sets speak it, as IDF does over tools: a word that
   * most servers' tools say ("search", "field", "page", "batch") tells servers apart less than
   * one only a few speak, however rare it is among all tools.
   */
  acrossSets?: boolean;
}

export class SetVocabulary {
  /** Per term, per tool set, how many of the set's tools use it. */
  private readonly bySet = new Map<string, Map<string, number>>();
  private readonly idf = new Map<string, number>();
  private readonly sizes = new Map<string, number>();
  /** Per term, log(1 + sets / sets that speak it), or 1 without `acrossSets`. */
  private readonly setIdf = new Map<string, number>();

  /**
   * @param documents each term with the tools that use it (a tool may repeat), e.g. the text
   *   index's postings (`TermPostings#documents`)
   * @param setOf each tool's tool set, by the tool's index
   */
  constructor(
    documents: Iterable<[string, Iterable<ArrayLike<number>>]>,
    setOf: readonly string[],
    options: SetVocabularyOptions = {},
  ) {
    for (const set of setOf) this.sizes.set(set, (this.sizes.get(set) ?? 0) + 1);
    for (const [term, lists] of documents) {
      const docs = new Set<number>();
      for (const list of lists) for (let i = 0; i < list.length; i += 1) docs.add(list[i]!);
      const counts = new Map<string, number>();
      for (const d of docs) counts.set(setOf[d]!, (counts.get(setOf[d]!) ?? 0) + 1);
      this.bySet.set(term, counts);
      if (options.acrossSets) {
        let speakers = 0;
        for (const [set, n] of counts) if (n / this.sizes.get(set)! >= SPOKEN) speakers += 1;
        this.setIdf.set(term, Math.log(1 + this.sizes.size / Math.max(1, speakers)));
      }
      this.idf.set(term, Math.log(1 + (setOf.length - docs.size + 0.5) / (docs.size + 0.5)));
    }
  }

  /** Per tool set that shares a term with the request, its fit relative to the best one's (0..1]. */
  fit(terms: readonly string[]): Map<string, number> {
    const scores = new Map<string, number>();
    for (const term of new Set(terms)) {
      const idf = (this.idf.get(term) ?? 0) * (this.setIdf.get(term) ?? 1);
      for (const [set, n] of this.bySet.get(term) ?? [])
        scores.set(set, (scores.get(set) ?? 0) + (idf * n) / (this.sizes.get(set)! + SMOOTHING));
    }
    const best = Math.max(0, ...scores.values());
    if (best > 0) for (const [set, s] of scores) scores.set(set, s / best);
    return scores;
  }
}
