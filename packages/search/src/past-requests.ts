import { W } from './relevance.js';
import { RequestClassifier, type Training } from './request-classifier.js';
import { requestTitle } from './request-title.js';
import { processTerm, tokenize } from './search-terms.js';

/**
 * A request someone made of the catalog, with the tools that answered it: a question asked in
 * public ("how do I get the records past the first 100?") labelled with the tool it needed.
 * Tool sets ship the ones they know of beside their tools (`pastRequests` of a tool set in
 * @toolhost/core).
 */
export interface PastRequest {
  request: string;
  /** Canonical names (`Set.Tool`) of the tools that answer it; any of them does. */
  tools: readonly string[];
  /** Where it was asked (an address), when known. */
  source?: string;
}

// How many of the most similar past requests vote, and the summed similarity at which a tool's
// vote is full. Chosen with the ranking's weights on the real questions' tuning sets, each
// question scored without its own (`tune:real`).
const NEIGHBOURS = 10;
const FULL_VOTE = 0.5;
// The tools' classifier (see `RequestClassifier`) has ten times the kinds' labels to learn: ten
// passes at twice the kinds' first step did as well as thirty at theirs on the real questions'
// tuning sets, at a third of the cost when the index is built (about 0.15 s for 932 past requests).
const TOOL_TRAINING: Training = { epochs: 10, rate: 0.6, l2: 1e-3 };

/**
 * A request's search terms, and each pair of its adjacent content words as one more term
 * (`rate limit`, `new stream`, `custom event`): two requests that share a phrase are alike in a
 * way two that share its words apart are not ("create a table of contacts" and "contacts in a
 * new table").
 */
export function termsOf(text: string): string[] {
  const words = tokenize(text)
    .map((w) => processTerm(w))
    .filter((terms) => terms.length > 0);
  const phrases = words.slice(1).map((terms, i) => `${words[i]![0]} ${terms[0]}`);
  return [...new Set([...words.flat(), ...phrases])];
}
export const isPhrase = (term: string) => term.includes(' ');

/** The terms (`termsOf`) of the request's title, if it has one (see `requestTitle`). */
export function titleTermsOf(text: string): Set<string> {
  const title = requestTitle(text);
  return new Set(title === undefined ? [] : termsOf(title));
}

/** A past request as the search reads it: its terms (`termsOf`) and its tools' ids in the catalog. */
export interface ReadRequest {
  terms: readonly string[];
  tools: readonly number[];
  /** The terms its title says (`titleTermsOf`). */
  title: ReadonlySet<string>;
}

/**
 * The past requests that say a word and name a tool the catalog has, read once for all that
 * leans on them (`PastRequests`, `PastRequestWords`).
 * @param idOf the catalog's id of a tool by canonical name (undefined: not in the catalog).
 */
export function readPastRequests(
  requests: readonly PastRequest[],
  idOf: (name: string) => number | undefined,
): ReadRequest[] {
  return requests
    .map((r) => ({
      terms: termsOf(r.request),
      tools: r.tools.map(idOf).filter((id): id is number => id !== undefined),
      title: titleTermsOf(r.request),
    }))
    .filter((r) => r.tools.length > 0 && r.terms.length > 0);
}

/**
 * The past requests most like a new one, and the tools they needed: people ask about an API in
 * ways its descriptions never say (a symptom, a parameter, "past 100 rows"), and what answered
 * one such question is the likeliest answer to the next one asked alike. Similarity is the cosine
 * of TF-IDF vectors of the requests' search terms (the catalog's vocabulary, `search-terms.ts`)
 * and of their phrases (see `termsOf`).
 */
export class PastRequests {
  /** The past requests as read (`readPastRequests`), in the order declared. */
  readonly read: readonly ReadRequest[];
  /** Per term, how many past requests say it. */
  private readonly df = new Map<string, number>();
  /**
   * Per term, the past requests that say it, with its weight in their unit vector: in typed
   * arrays side by side, which a search walks for each of its terms (hundreds of requests for
   * the commonest).
   */
  private readonly postings = new Map<string, { requests: Int32Array; weights: Float64Array }>();
  /** Each past request's similarity to the request being searched, zeroed after each search. */
  private readonly similarity: Float64Array;
  /** The kinds of operation each request wants, and the tools (by id) that answered it. */
  private readonly operations: RequestClassifier;
  private readonly tools: RequestClassifier;

  /**
   * @param idOf the catalog's id of a tool by canonical name (undefined: not in the catalog).
   * @param kindOf the kind of operation of a tool by id (`operationKind`).
   */
  constructor(
    requests: readonly PastRequest[],
    idOf: (name: string) => number | undefined,
    private readonly kindOf: (id: number) => string,
  ) {
    const kept = readPastRequests(requests, idOf);
    this.read = kept;
    this.similarity = new Float64Array(kept.length);
    this.operations = new RequestClassifier(
      kept.map((r) => ({ terms: r.terms, labels: [...new Set(r.tools.map(kindOf))] })),
    );
    this.tools = new RequestClassifier(
      kept.map((r) => ({ terms: r.terms, labels: r.tools.map(String) })),
      TOOL_TRAINING,
    );
    for (const r of kept) for (const t of r.terms) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    const lists = new Map<string, { request: number; weight: number }[]>();
    kept.forEach((r, request) => {
      for (const [term, weight] of this.vector(r.terms, r.title)) {
        const list = lists.get(term) ?? [];
        lists.set(term, list);
        list.push({ request, weight });
      }
    });
    for (const [term, list] of lists)
      this.postings.set(term, {
        requests: Int32Array.from(list, (p) => p.request),
        weights: Float64Array.from(list, (p) => p.weight),
      });
  }

  /** How many past requests name a tool of the catalog. */
  get size(): number {
    return this.read.length;
  }

  /**
   * A unit TF-IDF vector. A term no past request says weighs as the rarest: a request about
   * something none of them asked about is unlike all of them, however many words it shares. A
   * term every one of them says still weighs a little (n + 2, not n + 1): a tool set that
   * declares a single past request must be able to vote with it.
   *
   * The terms of a request's title (`title`, see `requestTitle`) weigh `W.titlePast` times as
   * much, in the past requests' vectors and in the one searched alike: two requests that ask for
   * the same thing in their titles are alike however their bodies tell the story around it.
   */
  private vector(terms: readonly string[], title: ReadonlySet<string>): Map<string, number> {
    const n = this.read.length;
    const idf = (t: string) => Math.log((n + 2) / ((this.df.get(t) ?? 0) + 1));
    const v = new Map(terms.map((t) => [t, (title.has(t) ? W.titlePast : 1) * idf(t)]));
    const norm = Math.hypot(...v.values());
    for (const [t, x] of v) v.set(t, norm > 0 ? x / norm : 0);
    return v;
  }

  /**
   * What the past requests say of `request`: per tool, the vote of those most like it (see
   * `votes`), and `said`, what they say of a tool in all: its vote, and how much likelier the
   * request's words make its kind of operation and the tool itself (see
   * `RequestClassifier#liftOf`), weighing `W.pastOperation` and `W.pastTool`. The votes weigh the
   * nearest requests whole; the classifiers weigh each word by what it told apart over them all.
   */
  consult(request: string): { votes: Map<number, number>; said: (id: number) => number } {
    const terms = termsOf(request);
    const votes = this.votes(terms, titleTermsOf(request));
    // The classifiers are asked only when the ranking is unsure enough to lean on them (see
    // `leanOnPastRequests`): most searches never need them.
    let lifts: { kinds: (label: string) => number; tools: (label: string) => number } | undefined;
    const said = (id: number) => {
      lifts ??= { kinds: this.operations.liftOf(terms), tools: this.tools.liftOf(terms) };
      return (
        (votes.get(id) ?? 0) +
        W.pastOperation * lifts.kinds(this.kindOf(id)) +
        W.pastTool * lifts.tools(String(id))
      );
    };
    return { votes, said };
  }

  /**
   * Per tool, the vote (0..1] of the past requests most like a request of `requestTerms`: each
   * of the nearest votes its similarity, shared among its tools, and a tool's summed votes are
   * full at `FULL_VOTE`.
   */
  private votes(requestTerms: readonly string[], title: ReadonlySet<string>): Map<number, number> {
    const votes = new Map<number, number>();
    if (this.read.length === 0) return votes;
    // Summed into one array with the past requests touched noted, then the nearest picked
    // by insertion: a search must stay well under a millisecond with hundreds of them.
    const similarity = this.similarity;
    const touched: number[] = [];
    // A phrase no past request says is no sign of a subject none of them asked about, as such a
    // word is (see `vector`): its words are, and they count.
    const terms = requestTerms.filter((t) => !isPhrase(t) || this.df.has(t));
    for (const [term, x] of this.vector(terms, title)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const { requests, weights } = posting;
      for (let p = 0; p < requests.length; p += 1) {
        const i = requests[p]!;
        const weight = weights[p]!;
        // A term every past request says weighs nothing: it neither touches nor counts.
        if (x * weight === 0) continue;
        if (similarity[i] === 0) touched.push(i);
        similarity[i] = similarity[i]! + x * weight;
      }
    }
    // Nearer first; of two as near, the one declared first.
    const before = (a: number, b: number) =>
      similarity[a]! > similarity[b]! || (similarity[a] === similarity[b] && a < b);
    const nearest: number[] = [];
    for (const i of touched) {
      if (nearest.length === NEIGHBOURS) {
        if (!before(i, nearest[NEIGHBOURS - 1]!)) continue;
        nearest.pop();
      }
      let at = nearest.length;
      while (at > 0 && before(i, nearest[at - 1]!)) at -= 1;
      nearest.splice(at, 0, i);
    }
    for (const i of nearest) {
      const tools = this.read[i]?.tools ?? [];
      for (const id of tools) votes.set(id, (votes.get(id) ?? 0) + similarity[i]! / tools.length);
    }
    for (const i of touched) similarity[i] = 0;
    for (const [id, v] of votes) votes.set(id, Math.min(1, v / FULL_VOTE));
    return votes;
  }
}

/**
 * Adds what the past requests say of each tool (`said`: their votes, and the likelihood of its
 * kind of operation, see `PastRequests#consult`) to a ranking and sorts it again, as far as the
 * ranking is unsure: in full where its first two are level, not at all where the first leads
 * by `W.pastLead` or more. A request the catalog's words answer plainly keeps its answer; one
 * asked the way people ask about an API (a symptom, a parameter) leans on what answered the
 * requests most like it.
 *
 * A long request leans on them whatever the lead, up to `W.pastLong` from `LONG_REQUEST.full`
 * words: it is someone telling what they are doing and what went wrong ("the test passed.
 * However the data did not transfer to airtable"), whose many words lend some tool a lead by
 * chance (a permission, a webhook), where an instruction of a few words ("add a row to Leads")
 * names its tool. `words` is the request's word count.
 */
export function leanOnPastRequests(
  ranked: { id: number; score: number }[],
  said: (id: number) => number,
  words: number,
): void {
  if (ranked.length === 0) return;
  const lead = (ranked[0]?.score ?? 0) - (ranked[1]?.score ?? 0);
  const unsure = Math.max(0, 1 - lead / W.pastLead);
  const long = Math.min(
    1,
    Math.max(0, (words - LONG_REQUEST.from) / (LONG_REQUEST.full - LONG_REQUEST.from)),
  );
  const weight = Math.max(unsure * W.past, long * W.pastLong);
  if (weight === 0) return;
  for (const r of ranked) r.score += weight * said(r.id);
  ranked.sort((a, b) => b.score - a.score);
}
// The word counts between which a request goes from an instruction (its words name the tool) to
// an account of what someone is doing (see `leanOnPastRequests`). Chosen on the real questions'
// tuning sets with the hand-written requests' figures held.
const LONG_REQUEST = { from: 8, full: 20 };
