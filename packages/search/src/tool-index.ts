import MiniSearch from 'minisearch';
import { type RequestIntent, requestIntent, verbOperation } from './request-intent.js';
import { knownWords, processTerm, tokenize } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';
import { siblingNote } from './sibling-note.js';
import { SpellingFixer } from './spelling.js';
import {
  type IdShape,
  namespaceSegments,
  type Operation,
  paramShapes,
  type ToolShape,
  toolShape,
} from './tool-shape.js';

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
}

interface IndexedTool {
  id: number;
  /** The tool's name and its tool set's, split into words by the tokenizer. */
  name: string;
  description: string;
  /** Parameter names (not `mode` and `request_body`, which every mode tool has). */
  params: string;
  /** The literal segments of the endpoint's path (`/meta/bases/{baseId}/tables` → meta bases tables). */
  path: string;
}

// A description says what a tool does in users' words; a name says it in the API's. Parameter
// names tell apart tools that differ in what they are given (an email versus a contact id).
const BOOST = { name: 1.5, description: 2, params: 0.2, path: 0.5 };
// BM25's length normalization close to full (b 0.9, against MiniSearch's 0.7) and a little more
// room for a repeated word (k 1.6): beside other servers' tools, whose descriptions run to
// paragraphs, a long description that says a request's word in passing must not outweigh a short
// one about it. Chosen on both parts of the real questions' tuning half.
const BM25 = { k: 1.6, b: 0.9, d: 0.5 };
const GENERIC_PARAMS = new Set(['mode', 'request_body']);

/**
 * A full-text index of the tools (BM25+, MiniSearch) over names, descriptions and parameter
 * names, with the vocabulary of `search-terms.ts`. Built once per catalog; a search is a few
 * hundred microseconds for a couple of hundred tools.
 */
export class ToolIndex {
  private readonly tools: readonly SearchableTool[];
  private readonly index: MiniSearch<IndexedTool>;
  private readonly shapes: readonly ToolShape[];
  private readonly prefixes: string[];
  /** The object an identifier shape names, from the parameters that take it (`rec` → record). */
  private readonly idObjects: Map<IdShape, string>;
  /** Notes computed so far, by tool (see `siblingNote`). */
  private readonly notes = new Map<number, string | undefined>();
  /** Per tool set, the indexes of its tools. */
  private readonly bySet = new Map<string, number[]>();
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

  constructor(tools: readonly SearchableTool[]) {
    this.tools = tools;
    const namespaces = namespaceSegments(tools);
    this.shapes = tools.map((t) => toolShape(t, namespaces));
    this.prefixes = [
      ...new Set(
        this.shapes.flatMap((s) =>
          [...s.ids.keys()].filter((k) => k.startsWith('prefix:')).map((k) => k.slice(7)),
        ),
      ),
    ];
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
    this.ownNouns = ownNouns(tools, this.shapes);
    const vendorOfSet = setVendors(tools, this.shapes);
    this.vendors = tools.map((t) => vendorOfSet.get(t.toolSet) ?? '');
    this.vendorWords = new Set(vendorOfSet.values());
    tools.forEach((t, id) => {
      const members = this.bySet.get(t.toolSet) ?? [];
      this.bySet.set(t.toolSet, members);
      members.push(id);
    });
    this.onlyReader = this.shapes.map(
      (shape, id) =>
        shape.op === 'get' &&
        !(this.bySet.get(tools[id]!.toolSet) ?? []).some((j) => {
          const other = this.shapes[j]!;
          return (
            (other.op === 'list' || other.op === 'search') && other.noun.some((t) => shape.noun.includes(t))
          );
        }),
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
    this.index = new MiniSearch<IndexedTool>({
      fields: ['name', 'description', 'params', 'path'],
      // Catalog words written in mixed case (`HyperDB`, `eDiscovery`) are also indexed whole, as
      // users type them ("hyperdb"); a request is split the same way as before.
      tokenize: (text, field) => [
        ...tokenize(text),
        ...compounds(text),
        ...(field === 'name' ? nameBigrams(text) : []),
      ],
      processTerm,
      searchOptions: {
        tokenize,
        boost: BOOST,
        bm25: BM25,
        // No fuzzy matching: the spelling fixer has already added the catalog word a misspelt
        // one stands for, and matching every term by edit distance cost most of a search's time
        // in a catalog of a thousand tools (and found unrelated words: `select` → `selective`).
      },
    });
    const documents = tools.map((t, id) => ({
      id,
      name: `${t.name.slice(t.toolSet.length + 1)} ${t.toolSet}`,
      // A parameter the description quotes by name ("give 'new_field_name'") is the params
      // field's to count: said twice, its words would outweigh what the tool acts on.
      description: t.description.replace(/'[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+'/g, ' '),
      params: Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {})
        .filter((p) => !GENERIC_PARAMS.has(p))
        .join(' '),
      path: (t.endpoint?.path ?? '')
        .split('/')
        .filter((seg) => seg.length > 0 && !seg.startsWith('{') && !/^v\d+$/i.test(seg))
        .join(' '),
    }));
    this.index.addAll(documents);
  }

  private note(id: number): string | undefined {
    if (!this.notes.has(id))
      this.notes.set(
        id,
        siblingNote(this.tools, this.shapes, id, this.bySet.get(this.tools[id]!.toolSet) ?? []),
      );
    return this.notes.get(id);
  }

  /** The tools that best match `query`, best first; none for a query of common words only. */
  search(query: string, options: ToolSearchOptions = {}): ToolMatch[] {
    const limit = options.limit ?? 5;
    const set = options.toolSet?.toLowerCase();
    const sets = options.toolSets && new Set(options.toolSets.map((s) => s.toLowerCase()));
    const intent = requestIntent(this.spelling.correct(query), this.prefixes);
    const named = namedVendors(query, intent, this.vendorWords);
    const identifiers = identifiersIn(query);
    const domain = domainOf(intent, this.ownNouns);
    const methods = new Set(query.match(HTTP_METHOD) ?? []);
    const inSet = (id: number) => {
      const own = this.tools[id]!.toolSet.toLowerCase();
      return (!set || own === set) && (!sets || sets.has(own));
    };
    // An id stands for its object: "show recA1b…" asks about a record.
    const objects = [...intent.ids].map((k) => (k === 'email' ? '' : (this.idObjects.get(k) ?? '')));
    const found = this.index.search([intent.text, ...objects].join(' '), {
      filter: (r) => inSet(r.id as number),
      // The verb's operation is weighed by the shapes; as a word it would favour every tool
      // whose description says "list" or "add" over the one about the object asked for. It
      // still counts a little: "update the row" is told from "add a row" by the tools' names.
      boostTerm: (term: string) =>
        GENERIC_OPS.has(intent.op) && intent.verbTerms.has(term) ? VERB_WEIGHT : 1,
    });
    // The shapes add at most about what the best text score is worth: a tool far down the text
    // ranking cannot reach the first five, so only the leading ones are weighed.
    const text = new Map<number, number>(found.slice(0, CANDIDATES).map((r) => [r.id as number, r.score]));
    // A tool that takes the request's identifier is a candidate even without a shared word.
    if (intent.ids.size > 0)
      this.shapes.forEach((shape, id) => {
        if (!text.has(id) && inSet(id) && [...intent.ids].some((k) => shape.ids.has(k))) text.set(id, 0);
      });
    sameTextForTwins(text, this.shapes);
    const best = found[0]?.score ?? 0;
    if (text.size === 0 || (best === 0 && intent.ids.size === 0)) return [];
    const ranked = [...text]
      .map(([id, score]) => ({
        id,
        score:
          relevance(score / (best || 1), this.shapes[id]!, intent, this.onlyReader[id]!) +
          vendorFit(named, this.vendors[id]!) +
          (identifiers.some((k) => this.paramKeys[id]!.has(k)) ? W.param : 0) +
          (methods.has(this.methods[id]!) ? W.method : 0) +
          (domain && this.tools[id]!.toolSet === domain ? W.domain : 0),
      }))
      .sort((a, b) => b.score - a.score);
    return ranked.slice(0, limit).map((r) => {
      const tool = this.tools[r.id]!;
      const differs = this.note(r.id);
      return {
        name: tool.name,
        toolSet: tool.toolSet,
        description: tool.description,
        readOnly: tool.hints.readOnly,
        score: r.score,
        ...(differs ? { differs } : {}),
      };
    });
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

const READS = new Set<Operation>(['list', 'get', 'search']);
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
const VERB_WEIGHT = 0.25;
const CANDIDATES = 100;

/**
 * Each tool set's product, as a search term: the name most of its descriptions start with
 * (`Airtable: …`), else the tool set's own name without a generic suffix (`SendGrid`,
 * `GitHubMcp` → github).
 */
function setVendors(tools: readonly SearchableTool[], shapes: readonly ToolShape[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  const sizes = new Map<string, number>();
  tools.forEach((t, id) => {
    sizes.set(t.toolSet, (sizes.get(t.toolSet) ?? 0) + 1);
    const vendor = shapes[id]!.vendor;
    // A product's name, capitalised and not a verb: "Update a DNS record of a domain: its
    // name…" has a colon too, but no product before it.
    const written = /^\s*([A-Za-z][\w.]*)[^:]*:/.exec(t.description)?.[1] ?? '';
    if (!vendor || !/^[A-Z]/.test(written) || verbOperation(written.toLowerCase()) !== undefined) return;
    const byVendor = counts.get(t.toolSet) ?? new Map<string, number>();
    counts.set(t.toolSet, byVendor);
    byVendor.set(vendor, (byVendor.get(vendor) ?? 0) + 1);
  });
  const vendors = new Map<string, string>();
  for (const [set, size] of sizes) {
    const [vendor, n] = [...(counts.get(set) ?? [])].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    const own = set.replace(/(Api|Apis|Mcp|Server|Tools?)$/, '').toLowerCase();
    vendors.set(set, n * 2 >= size ? vendor : own);
  }
  return vendors;
}

/**
 * The objects only one tool set acts on, by the object nouns of its tools: a product's own
 * vocabulary (a base, a table and a field are Airtable's; a droplet is DigitalOcean's), where a
 * noun that several tool sets act on (a record, an event) tells none apart.
 */
function ownNouns(tools: readonly SearchableTool[], shapes: readonly ToolShape[]): Map<string, string> {
  const setsOf = new Map<string, Set<string>>();
  shapes.forEach((shape, id) => {
    for (const t of shape.head) {
      const sets = setsOf.get(t) ?? new Set<string>();
      setsOf.set(t, sets);
      sets.add(tools[id]!.toolSet);
    }
  });
  const own = new Map<string, string>();
  for (const [t, sets] of setsOf) if (sets.size === 1) own.set(t, [...sets][0]!);
  return own;
}

/** The tool set whose own objects the request names more of than any other's, if one does. */
function domainOf(intent: RequestIntent, nouns: ReadonlyMap<string, string>): string | undefined {
  const counts = new Map<string, number>();
  for (const t of intent.stems) {
    const set = nouns.get(t);
    if (set && !intent.verbTerms.has(t)) counts.set(set, (counts.get(set) ?? 0) + 1);
  }
  const [first, second] = [...counts].sort((a, b) => b[1] - a[1]);
  return first && (!second || first[1] > second[1]) ? first[0] : undefined;
}

/** The products a request names, among those of the catalog's tool sets. */
function namedVendors(query: string, intent: RequestIntent, vendors: ReadonlySet<string>): Set<string> {
  const named = new Set<string>();
  for (const w of [...query.toLowerCase().split(/[^a-z0-9]+/), ...intent.stems])
    if (vendors.has(w)) named.add(w);
  return named;
}

/**
 * A request that names a product is about that product's tools: they gain, and the tools of a
 * product it does not name lose (beside other servers' tools, "update the Airtable record" is
 * not about DNS records).
 */
function vendorFit(named: ReadonlySet<string>, vendor: string): number {
  if (named.size === 0 || !vendor) return 0;
  return named.has(vendor) ? W.vendor : -W.otherVendor;
}

/**
 * Two neighbouring words of a tool's name written as one, as code spells them
 * (`SendPageViewEvent` → pageview; `track_pageview()`, `whoami`).
 */
function nameBigrams(text: string): string[] {
  const ws = tokenize(text).map((w) => w.toLowerCase());
  return ws.slice(1).map((w, i) => `${ws[i]}${w}`);
}

// An HTTP method written as the API's documentation writes it, in capitals: "use PATCH", "(PUT)".
const HTTP_METHOD = /\b(GET|POST|PUT|PATCH|DELETE)\b/g;

/** A parameter's name without case or separators: `return_fields_by_field_id` → returnfieldsbyfieldid. */
function identifierKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Words of a request written as code (`filterByFormula`, `page_size`): a parameter's name the
 * asker read in the API's documentation, which names the tools that take it.
 */
function identifiersIn(query: string): string[] {
  return [...query.matchAll(/\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g)].map((m) =>
    identifierKey(m[0]),
  );
}

/** Mixed-case words of a description, whole and lower-cased: `HyperDB` → hyperdb. */
function compounds(text: string): string[] {
  return [...text.matchAll(/\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b/g)].map((m) => m[0].toLowerCase());
}

const ID_WORDS = new Set(['id', 'ids', 'identifier', 'uuid', 'guid', 'key', 'or', 'name']);

/** Per identifier shape, the word most parameters taking it are named by (`user_id` → user). */
function idObjects(tools: readonly SearchableTool[]): Map<IdShape, string> {
  const counts = new Map<IdShape, Map<string, number>>();
  const setWords = new Set(tools.flatMap((t) => tokenize(t.toolSet).map((w) => w.toLowerCase())));
  for (const t of tools)
    for (const [name, schema] of Object.entries(
      (t.inputSchema.properties as Record<string, Record<string, unknown>> | undefined) ?? {},
    ))
      for (const shape of paramShapes(name, schema)) {
        const byWord = counts.get(shape) ?? new Map<string, number>();
        counts.set(shape, byWord);
        for (const w of tokenize(name).map((x) => x.toLowerCase()))
          if (!ID_WORDS.has(w) && !setWords.has(w) && w !== 'grid') byWord.set(w, (byWord.get(w) ?? 0) + 1);
      }
  const objects = new Map<IdShape, string>();
  for (const [shape, byWord] of counts) {
    const best = [...byWord].sort((a, b) => b[1] - a[1])[0];
    if (best) objects.set(shape, best[0]);
  }
  return objects;
}

// How well each operation serves each asked-for one (rows: asked; 1 = exactly, 0 = not at all).
const OPERATION_FIT: Record<NonNullable<RequestIntent['op']>, Partial<Record<Operation, number>>> = {
  list: { list: 1, search: 0.6, get: 0.4 },
  get: { get: 1, list: 0.6, search: 0.6 },
  count: { get: 0.8, list: 0.8, search: 0.5 },
  read: { get: 0.85, list: 0.85, search: 0.7 },
  link: { link: 1, create: 0.5, update: 0.4, replace: 0.3, action: 0.3 },
  search: { search: 1, list: 0.8, get: 0.6 },
  create: { create: 1, upsert: 0.7, send: 0.5, link: 0.5, action: 0.3, update: 0.3 },
  update: { update: 1, replace: 0.6, upsert: 0.6, action: 0.4, create: 0.2 },
  replace: { replace: 1, update: 0.6, upsert: 0.7 },
  upsert: { upsert: 1, create: 0.6, replace: 0.6, update: 0.6 },
  delete: { delete: 1, action: 0.3 },
  action: { action: 1, update: 0.5 },
  send: { send: 1, create: 0.5, action: 0.5, upsert: 0.3 },
};
const W = {
  parentHit: 0.4,
  implicit: 0.5,
  idKind: 0.2,
  number: 0.1,
  deep: 0.04,
  vendor: 0.15,
  otherVendor: 0.3,
  domain: 0.1,
  param: 0.25,
  method: 0.2,
  op: 0.45,
  action: 0.35,
  head: 0.3,
  ids: 0.4,
  several: 0.15,
  named: 0.1,
  byEmail: 0.05,
  parentOp: 0.5,
  area: 0.3,
  asked: 0.2,
};

/** The request's fit with one tool: its text score (0..1) plus what the shapes agree on. */
function relevance(text: number, shape: ToolShape, intent: RequestIntent, onlyReader: boolean): number {
  let score = text;
  // A tool of a part of the product the request never names (SCIM, enterprise, HyperDB) is less
  // likely than one of the product at large.
  if (shape.area && !shape.area.some((t) => intent.stems.has(t))) score -= W.area;
  if (intent.op) {
    // An action's verb also says what kind of change it is: revoking deletes, granting creates.
    const kind = shape.actionVerb ? verbOperation(shape.actionVerb) : undefined;
    const fits = OPERATION_FIT[intent.op];
    const fit = Math.max(
      fits[shape.op] ?? 0,
      kind ? (fits[kind] ?? 0) : 0,
      // Setting contacts' state ("mark them attended") changes them, whatever the path says.
      shape.setsState ? (fits.update ?? 0) : 0,
      // With no list of its objects, the tool that reads them is how to list them.
      onlyReader ? (fits.list ?? 0) : 0,
    );
    // "add members TO a group", "remove Bob FROM the base": the change is to the object, not
    // to its parent; a tool that creates or deletes the parent fits less.
    const parentOnly =
      shape.noun.length > 0 &&
      shape.noun.every((t) => intent.parentStems.has(t) || !intent.stems.has(t)) &&
      shape.noun.some((t) => intent.parentStems.has(t));
    const ofParent = parentOnly && (shape.op === 'create' || shape.op === 'delete') ? W.parentOp : 1;
    score += W.op * (intent.implicit ? W.implicit : 1) * fit * ofParent;
    // A question ("which users have admin rights?") asks to look: a tool that changes fits less
    // than one that reads, whatever words they share.
    if (intent.asked && !READS.has(shape.op)) score -= W.asked;
  }
  // "the published email" names a state of the email, not the publishing.
  if (shape.actionWord && intent.stems.has(shape.actionWord) && !intent.adjectives.has(shape.actionWord))
    score += W.action;
  if (shape.head.length > 0) {
    // A word of the object counts in full; one only in the parent's part ("from the base")
    // counts less: "remove Bob from the base" is not about deleting the base.
    let hits = 0;
    for (const t of shape.head)
      if (intent.stems.has(t) && !intent.verbTerms.has(t))
        hits += intent.parentStems.has(t) ? W.parentHit : 1;
    score += W.head * (hits > 0 ? 0.5 * Math.min(1, hits) + (0.5 * hits) / shape.head.length : 0);
  }
  // Each identifier in the request counts: "remove usr… from base app…" fits a tool that takes
  // the user as its object and the base as a parent better than one about the base alone.
  let idFit = 0;
  for (const k of intent.ids) idFit += shape.ids.get(k) ?? 0;
  if (intent.ids.size > 0) score += (W.ids * idFit) / intent.ids.size;
  // Reading several is what a list does anyway; changing several needs a batch tool.
  const reads = shape.op === 'list' || shape.op === 'search';
  if (shape.batch === intent.several || (intent.several && reads)) score += W.several;
  // Several ids named ("delete rec… and rec…") cannot go to a tool that takes one in its path.
  else if (intent.several && intent.ids.size > 0 && shape.item && !shape.batch) score -= W.several;
  if (intent.named && shape.item && intent.op !== 'list' && intent.op !== 'create') score += W.named;
  if (shape.idKind && intent.idKind) score += shape.idKind === intent.idKind ? W.idKind : 0;
  // A tool that takes people by email address is for a request that has or says one.
  if (shape.ids.get('email') === 1 && !intent.ids.has('email') && !intent.stems.has('email'))
    score -= W.byEmail;
  // A tool nested under objects the request never names ("an interface's collaborator" when
  // only a base was said) is less likely than its sibling nested under fewer.
  const unsaid = shape.parents.filter((p) => !intent.stems.has(p)).length;
  score -= W.deep * Math.min(3, unsaid);
  // Asked to look without a verb that says list or one: "comments on record …" wants several,
  // "email 4242 draft" one.
  if (intent.op === 'read' || intent.op === 'get' || intent.op === 'list') {
    const many = shape.head.some((t) => intent.plural.has(t));
    const one = shape.head.some((t) => intent.singular.has(t) && !intent.plural.has(t));
    if ((shape.op === 'list' || shape.op === 'search') && many) score += W.number;
    else if (shape.item && shape.op === 'get' && one && !many) score += W.number;
  }
  return score;
}
