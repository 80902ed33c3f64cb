import type MiniSearch from 'minisearch';

/**
 * MiniSearch's BM25+ scores, worked out once per term when the catalog is indexed rather than
 * per search: its `search` builds a result object for every tool that shares any word with the
 * request and scores each field anew, which in a catalog of 1,400 tools beside other servers'
 * cost most of a search's time. Read from the index's own serialized form (`toJSON`), so the
 * terms, frequencies and field lengths are MiniSearch's; scored with its formula (BM25+, the
 * field boosts, and the score multiplied by how many of the request's terms a tool matched),
 * but for the rarity of a term, which is counted over tools rather than per field (see below).
 */

export interface Bm25 {
  k: number;
  b: number;
  d: number;
}

/** One term's tools, per field, with the term's weighted score in each. */
interface Posting {
  docs: Int32Array;
  scores: Float64Array;
}

/** What `MiniSearch#toJSON` returns, as far as it is read here. */
interface SerializedIndex {
  documentCount: number;
  documentIds: Record<string, number>;
  fieldIds: Record<string, number>;
  fieldLength: Record<string, number[]>;
  averageFieldLength: number[];
  index: [string, Record<string, Record<string, number>>][];
}

export interface TextMatch {
  id: number;
  score: number;
}

export class TermPostings {
  private readonly postings = new Map<string, Posting[]>();
  private readonly score: Float64Array;
  private readonly matched: Uint16Array;
  private readonly stamp: Uint32Array;
  private serial = 0;

  constructor(index: MiniSearch, boost: Record<string, number>, bm25: Bm25) {
    const data = index.toJSON() as unknown as SerializedIndex;
    const size = Math.max(0, ...Object.values(data.documentIds).map((id) => id + 1));
    this.score = new Float64Array(size);
    this.matched = new Uint16Array(size);
    this.stamp = new Uint32Array(size);
    // Fields in the order MiniSearch scores them (the boosts'), so that ties keep its order.
    const fields = Object.keys(boost).map((f) => [data.fieldIds[f]!, boost[f]!] as const);
    for (const [term, byField] of data.index) {
      const lists: Posting[] = [];
      // A term's rarity is that of the tools that say it anywhere, not in one field: MiniSearch
      // counts it per field, so `field`, which two tool names say and sixteen descriptions,
      // weighed in a name as a rare word and made "update the fields of a record" a request
      // about the two tools that change fields. One weight per term, as BM25 has it.
      let n = 0;
      this.serial += 1;
      for (const [fieldId] of fields)
        for (const shortId in byField[fieldId] ?? {}) {
          const d = data.documentIds[shortId]!;
          if (this.stamp[d] !== this.serial) {
            this.stamp[d] = this.serial;
            n += 1;
          }
        }
      const idf = Math.log(1 + (data.documentCount - n + 0.5) / (n + 0.5));
      for (const [fieldId, fieldBoost] of fields) {
        const freqs = byField[fieldId];
        if (!freqs) continue;
        const shortIds = Object.keys(freqs);
        const docs = new Int32Array(shortIds.length);
        const scores = new Float64Array(shortIds.length);
        const avg = data.averageFieldLength[fieldId]!;
        shortIds.forEach((shortId, i) => {
          const tf = freqs[shortId]!;
          const length = data.fieldLength[shortId]![fieldId]!;
          docs[i] = data.documentIds[shortId]!;
          scores[i] =
            fieldBoost *
            idf *
            (bm25.d + (tf * (bm25.k + 1)) / (tf + bm25.k * (1 - bm25.b + (bm25.b * length) / avg)));
        });
        lists.push({ docs, scores });
      }
      this.postings.set(term, lists);
    }
  }

  /** Each term with the tools whose text has it, in any field (a tool may repeat). */
  *documents(): Generator<[string, Int32Array[]]> {
    for (const [term, lists] of this.postings) yield [term, lists.map((l) => l.docs)];
  }

  /**
   * The tools that share a term with `terms` and pass `keep`, best first: the sum of each term's
   * score times its weight, times how many distinct terms matched.
   */
  search(
    terms: readonly string[],
    weight: (term: string) => number,
    keep: (id: number) => boolean,
    groupOf: (term: string) => string = (term) => term,
  ): TextMatch[] {
    return this.matches(terms, weight, keep, groupOf).sort((a, b) => b.score - a.score);
  }

  /**
   * `search`'s matches unsorted, in the order the tools were first found (which orders the
   * ties of `search`, a stable sort): for a caller that wants only the first few.
   */
  matches(
    terms: readonly string[],
    weight: (term: string) => number,
    keep: (id: number) => boolean,
    groupOf: (term: string) => string = (term) => term,
  ): TextMatch[] {
    // Each group's terms together: a tool is counted once per group it matches, by a stamp
    // that the next group's terms overwrite.
    const groups = new Map<string, Map<string, number>>();
    for (const t of terms) {
      const group = groupOf(t);
      const counts = groups.get(group) ?? new Map<string, number>();
      groups.set(group, counts);
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    const seen: number[] = [];
    for (const counts of groups.values()) {
      this.serial += 1;
      for (const [term, count] of counts) this.add(term, weight(term) * count, seen);
    }
    const found: TextMatch[] = [];
    for (const d of seen) {
      if (keep(d)) found.push({ id: d, score: this.score[d]! * this.matched[d]! });
      this.score[d] = 0;
      this.matched[d] = 0;
    }
    return found;
  }

  /** Adds `term`'s scores, times `w`, to its tools, counting it as matched under the current stamp. */
  private add(term: string, w: number, seen: number[]): void {
    const lists = this.postings.get(term);
    if (!lists) return;
    const serial = this.serial;
    for (const { docs, scores } of lists)
      for (let i = 0; i < docs.length; i += 1) {
        const d = docs[i]!;
        if (this.matched[d] === 0) seen.push(d);
        if (this.stamp[d] !== serial) {
          this.stamp[d] = serial;
          this.matched[d] = this.matched[d]! + 1;
        }
        this.score[d] = this.score[d]! + w * scores[i]!;
      }
  }
}
