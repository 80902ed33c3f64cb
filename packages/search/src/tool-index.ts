import { idObjects, idPrefixes } from './catalog-ids.js';
import { HTTP_METHOD, identifierKey, identifiersIn } from './code-words.js';
import { directedIntent } from './data-direction.js';
import { PastRequestWords } from './past-request-words.js';
import { leanOnPastRequests, type PastRequest, PastRequests, titleTermsOf } from './past-requests.js';
import { domainOf, namedVendors, namesOther, ownNouns, setVendors, vendorFit } from './product-sets.js';
import { relevance, verbAgreement, W } from './relevance.js';
import { type RequestIntent, requestIntent } from './request-intent.js';
import { knownWords, literalTerm, processTerm, tokenize } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';
import { SetVocabulary } from './set-vocabulary.js';
import { siblingNote } from './sibling-note.js';
import { SpellingFixer } from './spelling.js';
import { TermPostings, type TextMatch } from './term-postings.js';
import { GENERIC_PARAMS, textIndex } from './text-index.js';
import { type IdShape, namespaceSegments, operationKind, type ToolShape, toolShape } from './tool-shape.js';

/** One tool found by a search, best first. */
export interface ToolMatch {
  /** Canonical name `<ToolSet>.<ToolName>`. */
  name: string;
  toolSet: string;
  description: string;
  readOnly: boolean;
  /** Relevance; comparable only within one search. */
  score: number;
  /** How it differs from the tool it is most easily taken for, in one line. */
  differs?: string;
}

export interface ToolSearchOptions {
  /** How many tools at most (default 5). */
  limit?: number;
  /** Only tools of this tool set (e.g. `GridApi`), compared case-insensitively. */
  toolSet?: string;
  /**
   * Only tools of these tool sets, compared case-insensitively: an index that holds other
   * servers' tools beside one's own can still answer from one's own catalog only.
   */
  toolSets?: readonly string[];
  /**
   * Only these tools, by canonical name: a view of the catalog narrowed per request searches the
   * catalog's one index rather than an index of its own (each would cost megabytes and a second
   * of building); its notes compare a tool only with siblings in the view.
   */
  only?: { has(name: string): boolean };
}

export interface ToolIndexOptions {
  /**
   * Requests people made of the catalog, with the tools that answered them: a request like one
   * of them leans toward its tools (see `PastRequests`). Tools not in the catalog are ignored.
   */
  pastRequests?: readonly PastRequest[];
}

// A description says what a tool does in users' words; a name says it in the API's. Parameter
// names tell apart tools that differ in what they are given (an email versus a contact id).
const BOOST = { name: 1.5, description: 2, params: 0.2, path: 0.5 };
// BM25's length normalization close to full (b 0.9, against MiniSearch's 0.7) and a little more
// room for a repeated word (k 1.6): beside other servers' tools, whose descriptions run to
// paragraphs, a long description that says a request's word in passing must not outweigh a short
// one about it. Chosen on both parts of the real questions' tuning half.
const BM25 = { k: 1.6, b: 0.9, d: 0.5 };

/**
 * A full-text index of the tools (BM25+, MiniSearch) over names, descriptions and parameter
 * names, with the vocabulary of `search-terms.ts`. Built once per catalog; a search is a few
 * hundred microseconds for a couple of hundred tools.
 */
export class ToolIndex {
  private readonly tools: readonly SearchableTool[];
  /** The text scores of the index's terms, per tool (see `TermPostings`). */
  private readonly text: TermPostings;
  private readonly setWords: SetVocabulary;
  private readonly setObjects: SetVocabulary;
  private readonly shapes: readonly ToolShape[];
  private readonly prefixes: string[];
  /** The object an identifier shape names, from the parameters that take it (`rec` → record). */
  private readonly idObjects: Map<IdShape, string>;
  /** Notes computed so far, by tool (see `siblingNote`). */
  private readonly notes = new Map<number, string | undefined>();
  /** Per tool set, the indexes of its tools. */
  private readonly bySet = new Map<string, number[]>();
  /** Per tool, its tool set's name lower-case, as `ToolSearchOptions` compares it. */
  private readonly setKeys: string[];
  /** Per tool, whether it is the only one of its tool set that reads its object (no list of them). */
  private readonly onlyReader: boolean[];
  /** Corrects misspelt words to words of the catalog and of the vocabulary. */
  private readonly spelling: SpellingFixer;
  /** Per tool, its parameters' names written without case or separators (`filterbyformula`). */
  private readonly paramKeys: Set<string>[];
  /** Per tool, its endpoint's HTTP method, upper-case. */
  private readonly methods: string[];
  /** Per tool, the product its tool set belongs to, as a search term (`airtable`, `sendgrid`). */
  private readonly vendors: string[];
  private readonly vendorWords: ReadonlySet<string>;
  /** Per object noun that only one tool set's tools act on (`table`, `droplet`), that tool set. */
  private readonly ownNouns: Map<string, string>;
  private readonly past: PastRequests;
  /** The words of the past requests each tool answered that its own text does not say. */
  private readonly pastWords: PastRequestWords;

  constructor(tools: readonly SearchableTool[], options: ToolIndexOptions = {}) {
    this.tools = tools;
    const namespaces = namespaceSegments(tools);
    this.shapes = tools.map((t) => toolShape(t, namespaces));
    this.prefixes = idPrefixes(this.shapes);
    this.idObjects = idObjects(tools);
    this.paramKeys = tools.map(
      (t) =>
        new Set(
          Object.keys((t.inputSchema.properties as object | undefined) ?? {})
            .filter((p) => !GENERIC_PARAMS.has(p))
            .map(identifierKey),
        ),
    );
    this.methods = tools.map((t) => t.endpoint?.method.toUpperCase() ?? '');
    this.setKeys = tools.map((t) => t.toolSet.toLowerCase());
    this.ownNouns = ownNouns(tools, this.shapes);
    const vendorOfSet = setVendors(tools, this.shapes);
    this.vendors = tools.map((t) => vendorOfSet.get(t.toolSet) ?? '');
    this.vendorWords = new Set(vendorOfSet.values());
    tools.forEach((t, id) => {
      const members = this.bySet.get(t.toolSet) ?? [];
      this.bySet.set(t.toolSet, members);
      members.push(id);
    });
    this.onlyReader = onlyReaders(tools, this.shapes, this.bySet);
    const ids = new Map(tools.map((t, id) => [t.name, id]));
    const kinds = this.shapes.map(operationKind);
    this.past = new PastRequests(
      options.pastRequests ?? [],
      (name) => ids.get(name),
      (id) => kinds[id]!,
    );
    this.spelling = new SpellingFixer([
      ...knownWords(),
      ...tools.flatMap((t) =>
        [
          t.name,
          t.description,
          ...Object.keys((t.inputSchema.properties as object | undefined) ?? {}),
        ].flatMap((text) => tokenize(text).map((w) => w.toLowerCase())),
      ),
    ]);
    this.text = new TermPostings(textIndex(tools, this.vendors), BOOST, BM25);
    this.pastWords = new PastRequestWords(this.past.read, this.text, tools.length, BM25);
    const setOf = tools.map((t) => t.toolSet);
    // Words, not objects, are where a big server's boilerplate speaks the request by chance.
    this.setWords = new SetVocabulary(this.text.documents(), setOf, { acrossSets: true });
    this.setObjects = new SetVocabulary(objectDocuments(this.shapes), setOf);
  }

  private note(id: number, only: ToolSearchOptions['only']): string | undefined {
    const siblings = this.bySet.get(this.tools[id]!.toolSet) ?? [];
    // A note naming a sibling the view hides would send the agent to a tool it cannot call.
    if (only) {
      const shown = siblings.filter((j) => only.has(this.tools[j]!.name));
      return siblingNote(this.tools, this.shapes, id, shown);
    }
    if (!this.notes.has(id)) this.notes.set(id, siblingNote(this.tools, this.shapes, id, siblings));
    return this.notes.get(id);
  }

  /** Per tool set, what speaking the request's words and acting on its objects is worth. */
  private setFit(terms: readonly string[], intent: RequestIntent): Map<string, number> {
    const fit = new Map<string, number>();
    for (const [set, f] of this.setWords.fit(terms)) fit.set(set, W.vocabulary * f);
    // The objects named, not the verb: "update" is no object any set acts on more than another.
    for (const [set, f] of this.setObjects.fit(terms.filter((t) => !intent.verbTerms.has(t))))
      fit.set(set, (fit.get(set) ?? 0) + W.objects * f);
    return fit;
  }

  /** What a search answers of one tool. */
  private match(id: number, score: number, only: ToolSearchOptions['only']): ToolMatch {
    const tool = this.tools[id]!;
    const differs = this.note(id, only);
    return {
      name: tool.name,
      toolSet: tool.toolSet,
      description: tool.description,
      readOnly: tool.hints.readOnly,
      score,
      ...(differs ? { differs } : {}),
    };
  }

  /**
   * The tools' text scores for the request's `words` (their search `terms`), their past requests'
   * words counted too (see `PastRequestWords`): the `CANDIDATES` best, best first. `verb` is what each term counts as the
   * request's verb: its operation is weighed by the shapes, and as a word it would favour every
   * tool whose description says "list" or "add" over the one about the object asked for; it still
   * counts a little ("update the row" is told from "add a row" by the tools' names).
   */
  private textScores(
    words: readonly string[],
    terms: readonly string[],
    verb: (term: string) => number,
    inSet: (id: number) => boolean,
  ): TextMatch[] {
    const literals = literalAlternatives(words, terms);
    const own = this.text.matches(
      [...terms, ...literals.keys()],
      (term) => (literals.has(term) ? W.literal : 1) * verb(term),
      inSet,
      (term) => literals.get(term) ?? term,
    );
    return this.pastWords.bestWith(own, terms, verb, inSet, CANDIDATES);
  }

  /**
   * Whether a tool is of the tool sets `options` asks for. Asked of every tool that shares a word
   * with the request, so the names are compared as lower-cased once, and not at all without a filter.
   */
  private setFilter(options: ToolSearchOptions): (id: number) => boolean {
    const set = options.toolSet?.toLowerCase();
    const sets = options.toolSets && new Set(options.toolSets.map((s) => s.toLowerCase()));
    const only = options.only;
    if (!set && !sets && !only) return () => true;
    return (id) => {
      const own = this.setKeys[id]!;
      return (!set || own === set) && (!sets || sets.has(own)) && (!only || only.has(this.tools[id]!.name));
    };
  }

  /** The tools that best match `query`, best first; none for a query of common words only. */
  search(query: string, options: ToolSearchOptions = {}): ToolMatch[] {
    const limit = options.limit ?? 5;
    const inSet = this.setFilter(options);
    const corrected = this.spelling.correct(query);
    const said = requestIntent(corrected, this.prefixes);
    const intent = directedIntent(said, query, this.vendorWords);
    // Where the direction of the data changed the operation, the verb said was the other end's
    // ("upload records from Airtable to S3"): as a word it would find the tools that do it here.
    const verbWeight = intent.op !== said.op ? 0 : GENERIC_OPS.has(intent.op) ? W.verb : 1;
    const named = namedVendors(query, intent, this.vendorWords);
    const identifiers = identifiersIn(query);
    const domain = domainOf(intent, this.ownNouns);
    const methods = new Set(query.match(HTTP_METHOD) ?? []);
    // An id stands for its object: "show recA1b…" asks about a record.
    const objects = [...intent.ids].map((k) => (k === 'email' ? '' : (this.idObjects.get(k) ?? '')));
    const words = tokenize([intent.text, ...objects].join(' '));
    const terms = words.flatMap((w) => processTerm(w));
    const title = titleTermsOf(intent.text);
    const found = this.textScores(
      words,
      terms,
      (term) => (intent.verbTerms.has(term) ? verbWeight : 1) * (title.has(term) ? W.titleText : 1),
      inSet,
    );
    // The shapes add at most about what the best text score is worth: a tool far down the text
    // ranking cannot reach the first five, so only the leading ones are weighed.
    const text = new Map<number, number>(found.map((r) => [r.id, r.score]));
    // A tool that takes the request's identifier is a candidate even without a shared word.
    if (intent.ids.size > 0)
      this.shapes.forEach((shape, id) => {
        if (!text.has(id) && inSet(id) && [...intent.ids].some((k) => shape.ids.has(k))) text.set(id, 0);
      });
    sameTextForTwins(text, this.shapes);
    const best = found[0]?.score ?? 0;
    // What answered the past requests most like this one is a candidate, whatever its words.
    const { votes, said: pastSaid } = this.past.consult(corrected);
    if (best === 0 && intent.ids.size === 0) text.clear();
    for (const id of votes.keys()) if (!text.has(id) && inSet(id)) text.set(id, 0);
    if (text.size === 0) return [];
    const setFit = this.setFit(terms, intent);
    const ranked = [...text]
      .map(([id, score]) => ({
        id,
        score:
          relevance(score / (best || 1), this.shapes[id]!, intent, this.onlyReader[id]!) +
          vendorFit(named, this.vendors[id]!) +
          (identifiers.some((k) => this.paramKeys[id]!.has(k)) ? W.param : 0) +
          (methods.has(this.methods[id]!) ? W.method : 0) +
          (domain && this.tools[id]!.toolSet === domain ? W.domain : 0) +
          (setFit.get(this.tools[id]!.toolSet) ?? 0),
      }))
      .sort((a, b) => b.score - a.score);
    leanOnPastRequests(
      ranked,
      (id) =>
        namesOther(named, this.vendors[id]!) ? 0 : verbAgreement(this.shapes[id]!, intent) * pastSaid(id),
      words.length,
    );
    return ranked.slice(0, limit).map((r) => this.match(r.id, r.score, options.only));
  }
}

/**
 * Gives each tool the best text score of its twins (see `ToolShape.twinKey`): their
 * descriptions differ only in how they identify the object, which the shapes weigh (whose id,
 * by email, one or a batch), so the wording of one or the other must not decide between them.
 */
function sameTextForTwins(text: Map<number, number>, shapes: readonly ToolShape[]): void {
  const best = new Map<string, number>();
  for (const [id, score] of text) {
    const key = shapes[id]!.twinKey;
    if (key) best.set(key, Math.max(best.get(key) ?? 0, score));
  }
  for (const [id, score] of text) {
    const key = shapes[id]!.twinKey;
    if (key) text.set(id, best.get(key) ?? score);
  }
}

// Operations said by verbs most descriptions start with (list, get; add, update, remove); a
// rarer one ("upsert", "publish") tells tools apart as a word too.
const GENERIC_OPS = new Set<RequestIntent['op']>([
  'list',
  'get',
  'read',
  'search',
  'create',
  'update',
  'delete',
]);
// Their verb as a word weighs `W.verb`. A word of the request as written, where the vocabulary
// maps it to a product's word ("file" to attachment), weighs `W.literal`: it finds another
// product's tools that say it, counted as the same word of the request and below the product's
// own word.

/** Per word that the vocabulary maps to another, its literal term → the term it maps to. */
function literalAlternatives(words: readonly string[], terms: readonly string[]): Map<string, string> {
  const literals = new Map<string, string>();
  for (const w of words) {
    const literal = literalTerm(w)[0];
    const mapped = processTerm(w)[0];
    if (literal && mapped && !terms.includes(literal)) literals.set(literal, mapped);
  }
  return literals;
}
const CANDIDATES = 100;

/** Per tool, whether it reads one object of a kind its tool set has no list or search for. */
function onlyReaders(
  tools: readonly SearchableTool[],
  shapes: readonly ToolShape[],
  bySet: ReadonlyMap<string, number[]>,
): boolean[] {
  return shapes.map(
    (shape, id) =>
      shape.op === 'get' &&
      !(bySet.get(tools[id]!.toolSet) ?? []).some((j) => {
        const other = shapes[j]!;
        return (
          (other.op === 'list' || other.op === 'search') && other.noun.some((t) => shape.noun.includes(t))
        );
      }),
  );
}

/** Each object noun with the tools that act on it (their shapes' heads). */
function objectDocuments(shapes: readonly ToolShape[]): Map<string, number[][]> {
  const docs = new Map<string, number[][]>();
  shapes.forEach((shape, id) => {
    for (const t of shape.head) {
      const list = docs.get(t) ?? [[]];
      docs.set(t, list);
      list[0]!.push(id);
    }
  });
  return docs;
}
