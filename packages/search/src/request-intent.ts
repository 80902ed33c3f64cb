import {
  asksForReadingPart,
  calledMethodVerb,
  operationNoun,
  withoutFeatureAsking,
  withoutProblemIssue,
} from './developer-phrasing.js';
import { processTerm, tokenize } from './search-terms.js';
import type { IdShape, Operation } from './tool-shape.js';
import { gerundVerb, nominalVerb } from './verb-forms.js';
import { stem } from './word-cache.js';

/**
 * What a request asks for, apart from the words it shares with descriptions: the operation
 * (from its verbs and question forms), whether it means several items, the identifiers it
 * carries by shape (an Airtable `rec…` id, a UUID, an email address) and its object terms.
 */
export interface RequestIntent {
  /** The operation asked for, when a verb or question form says one. */
  op?: Operation | 'count' | 'read';
  /** Stems of every word, verbs included, to compare with a tool's action verb. */
  stems: Set<string>;
  /**
   * Search terms of the word read as the request's verb ("INVITE someone", "LOG a visit"): what
   * is done, which the operation already weighs, not the object it is done to.
   */
  verbTerms: Set<string>;
  /**
   * Stems of the words after a preposition ("remove Bob FROM the base", "a property OF the
   * definition"): the object's parent, not the object acted on.
   */
  parentStems: Set<string>;
  /** The request says several items (a batch, a number of them, a list of ids). */
  several: boolean;
  /**
   * The request says one item: the verb's object in the singular after a word that singles it
   * out ("get A record", "delete THIS field", "a SINGLE row"), or "an id" / "by id".
   */
  one: boolean;
  /** Identifier shapes found in the request. */
  ids: Set<IdShape>;
  /** Some token looks like an identifier (digits in it): one object is named. */
  named: boolean;
  /** The request with identifiers taken out: what the full-text index is asked. */
  text: string;
  /** The request is a question about what is there ("which users …?", "is my export ready"). */
  asked: boolean;
  /** No verb or question form says the operation: a bare noun phrase, read as a look-up. */
  implicit: boolean;
  /**
   * Whose identifier the request names an object by: one the caller's own system assigned
   * ("external", "our app's id", a name-like token such as `wb-31`) or the service's own
   * ("internal", "object id", a bare number).
   */
  idKind?: 'internal' | 'external';
  /** Stems of words that a determiner makes adjectives ("the PUBLISHED email"): states, not verbs. */
  adjectives: Set<string>;
  /** Stems of nouns the request puts in the plural ("comments", "rows"), apart from those in the singular. */
  plural: Set<string>;
  singular: Set<string>;
}

// The verbs users say for each operation, in everyday words; the first one in a request wins.
export const VERBS: Record<string, Operation> = {};
function verbs(op: Operation, list: string): void {
  for (const w of list.split(' ')) VERBS[w] = op;
}
// To paginate is to list a page at a time.
verbs('list', 'list lists listing enumerate browse all every paginate');
verbs('get', 'get show open read view fetch retrieve see display check inspect details detail describe pull');
verbs('search', 'search find lookup filter query');
verbs(
  'create',
  'create add new make build define provision insert draft plan register start setup spin request give ' +
    'grant share invite put post submit append enroll enrol subscribe onboard comment reply upload export write',
);
verbs(
  'update',
  'update change edit modify rename set tweak fix correct adjust deactivate suspend downgrade upgrade ' +
    'move enable disable restore revert rollback undo reset refresh mark assign save',
);
verbs('replace', 'replace overwrite');
verbs('upsert', 'upsert sync');
verbs(
  'delete',
  'delete remove drop erase purge destroy uninstall deprovision archive unlink detach kick discard revoke ' +
    'kill nuke wipe trash scrap zap',
);
verbs('send', 'send track fire trigger push report record log note notify emit publish tell');
verbs('link', 'link attach associate connect tie');

// Words that are nouns as often as verbs (an audit log, an email draft, a report): verbs only
// where a sentence or clause starts, or at the end of a terse request ("audit log exports list").
const NOUN_VERBS = new Set(
  (
    'log record report draft plan set start register schedule list view check find request export mark share ' +
    'post comment reply upload note invite'
  ).split(' '),
);
// What a word that is also a noun means as a verb, in the catalog's words: "log a page visit"
// tracks it, it is not about logs; "post a comment" adds one, it is not about blog posts.
const VERB_SENSE: Record<string, string> = { log: 'track', note: 'track', post: 'add', draft: 'create' };
const CLAUSE_START = new Set('please then and to can could would you i we let me must should'.split(' '));
// Words after which the rest names where the object is, not the object itself.
const PARENT_MARKERS = new Set('from of in on into to off within inside under for at'.split(' '));
/** A word that names something: not common, not an operation's verb. */
const content = (w: string) => processTerm(w).length > 0 && VERBS[w] === undefined;
// Tokens with digits joined by `_` or `-` (`pe123_video_watched`, `wb-31`) are names, not words.
const NAME_TOKEN = /\b(?=[\w-]*\d)(?=[\w-]*[_-])[\w-]+\b/g;

// Phrases whose verb alone says something else: "take X off", "turn X back on", "make X an owner".
const PHRASES: [RegExp, Operation][] = [
  [/\btake\b.{0,40}\b(out|off|away)\b/i, 'delete'],
  [/\bturn\b.{0,40}\b(on|off)\b/i, 'action'],
  // "make bob an admin", "make a workspace collaborator an owner of …"; not "make a copy of it".
  [
    /\bmake\s+((?!(of|on|in|for|to|from|with)\b)\S+\s+){1,3}(an?|the)\s+\w+(\s+(of|on|in|for)\b.*)?$/i,
    'update',
  ],
  // "… shouldn't be part of campaign 5 anymore", "Ann is no longer an admin": taking away.
  [/\b(shouldn'?t|should not|must not|mustn'?t|no longer)\s+(be|have|get)\b|\banymore\b/i, 'delete'],
  // "give me the workflows" asks to read, "give Ann access" to grant.
  [/^\W*(please\s+)?give\s+(me|us)\b/i, 'get'],
];
// After "make", a determiner or a number starts a new thing ("make a new form"); anything else
// is an existing object given a new state ("make usr… read only").
// Words that count the object rather than name it: "get MORE THAN 100 records", "fetch the
// FIRST 50 rows".
const QUANTITY = /^(\d+|more|fewer|less|than|first|last|next|top|over|under|up)$/i;
const MAKE_NEW = new Set('a an new one another some two three several'.split(' '));
// Words by which a request says whose id it names an object by.
const EXTERNAL =
  /(?<!\bnon-?)\bexternal\b|\b(our|my|your|their)\s+(own\s+)?(app|platform|integration|system)('?s)?\s+(own\s+)?(id|ids|event|events)\b|\bour (own )?ids?\b|\bapp'?s (own )?ids?\b/i;
const INTERNAL =
  /\binternal\b|\bnon-?external\b|\bobject ids?\b|\bobject \d+|\b\w+'s (own )?(object )?id\b(?<!app's id)|\bits (own |\w+ )?id\b/i;
// A bare number of several digits is an id the service assigned; a token of letters and digits
// joined by `-` or `_` (`wb-31`) is a name some other system gave.
const BARE_NUMBER = /(?<![\w-])\d{3,}(?![\w-])/;
const ADJECTIVE = /\b(the|a|an|our|my|this|that|its|their|your|every|all)\s+(\w+ed)\b/gi;
// A request put as a question asks to read ("which users are provisioned", "is my export ready").
// Not a question about how to do something: "how do I …", "how to …", "is there a way to …", "is it possible to …";
// nor one put to whoever is asked ("are you planning to add …", "do you support …"), which asks
// them to do something: its verb says what.
const QUESTION =
  /^\s*(what|which|who|whom|whose|is|are|was|were|does|do|did|has|have|when|where|how)\b(?!\s+(do|can|should|would|could)\s+(i|we|you)\b)(?!\s+to\b)(?!\s+(you|u)\b)(?!\s+there\s+(a|an|any|some)\s+(way|tool|call|endpoint|api)\b)(?!\s+it\s+possible\b)/i;

// Question forms that ask for a list ("what campaigns do we have", "which bases exist", "we have
// any forms?"); "I have a column that …" in a story is no question about what there is.
const LIST_QUESTION =
  /\b(what|which)\b[^?]*\b(do|does|did|have|has)\s+(i|we|you|they|it|our|my)\b[^?]*\b(have|got|own|exist)\b|\b(what|which)\b[^?]*\b(exist|are there|are set up|are installed|are in)\b|\b(we|i)\s+(have|own|got)\b(?=[^.!:;]*\?)/i;
// Words that count or gather what follows "of" rather than own it: "a LIST of the tables",
// "the NUMBER of records", "a BUNCH of rows" are about the tables and the records.
const AMOUNT_NOUNS = new Set(
  'list lists number count total set lot lots bunch couple batch few all each any'.split(' '),
);
// Words that single out one item before its noun: "get A record", "THIS field", "ONE SPECIFIC row".
const ONE = new Set('a an one single this that specific given particular individual'.split(' '));
// "takes an id", "look it up by id": one item, named by its id.
const ONE_ID = /\b(an|one|its|by|given|specific|single)\s+(\w+\s+)?id\b/i;
const LIST_OF = /\b(a|the|full|complete|whole)\s+list\s+of\b/i;
// "A (large) number of" says there are many, not how many: "a huge number of failed entries".
const COUNT = /\bhow many\b|(?<!\ban?\s+(\w+\s+)?)\bnumber of\b|\bcounts?\b|\bhow much\b/i;
const SEVERAL =
  /\b(several|multiple|many|both|together|bulk|batch|bunch|at once|in one (go|call|request|batch)|in a batch|these (two|three|four|five|\w+s)|a few)\b|\b([2-9]|\d\d+) ([a-z-]+ )?(?!(hours|days|minutes|seconds|times|weeks|months|years)\b)[a-z-]*[a-z]s\b/i;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
// Two or more ids in a row ("101, 102 and 103"; "recA… and recB…").
const ID_LIST = /\b\w*\d\w*\b\s*(,|\band\b)\s*\w*\d\w*\b/;

/**
 * Reads a request. `prefixes` are the id prefixes the catalog's parameters declare (`rec`,
 * `app`…): a word made of one of them and 10 or more letters and digits is such an id.
 */
const prefixPatterns = new Map<string, RegExp>();
/** Ids made of one of `prefixes` and 10 or more letters and digits, some not lower-case. */
function prefixedIds(prefixes: readonly string[]): RegExp {
  const key = prefixes.join('|');
  let pattern = prefixPatterns.get(key);
  if (!pattern) {
    pattern = new RegExp(`\\b(${key})(?=[A-Za-z0-9]*[A-Z0-9])[A-Za-z0-9]{10,}\\b`, 'g');
    prefixPatterns.set(key, pattern);
  }
  return pattern;
}

/** The operation a verb stands for, if it is one users say. */
export function verbOperation(verb: string): Operation | undefined {
  return VERBS[verb];
}

/** The identifier shapes in `request`, and the request without them. */
function idsIn(request: string, prefixes: readonly string[]): { ids: Set<IdShape>; text: string } {
  const ids = new Set<IdShape>();
  let text = request;
  if (text.match(UUID)) ids.add('uuid');
  text = text.replace(UUID, ' ');
  if (text.match(EMAIL)) ids.add('email');
  text = text.replace(EMAIL, ' ');
  if (prefixes.length > 0) {
    const prefixed = prefixedIds(prefixes);
    for (const m of text.matchAll(prefixed)) ids.add(`prefix:${m[1]}`);
    text = text.replace(prefixed, ' ');
  }
  return { ids, text };
}

/** The request's words, lower-cased, and where each clause starts among them. */
function clausedWords(text: string): { words: string[]; starts: Set<number> } {
  // A clause starts after punctuation too ("Budget tab: edit…", "HubSpot: record that…"), not
  // at a dot inside a name ("customer.io").
  const starts = new Set<number>();
  const words: string[] = [];
  for (const clause of text.split(/[:;!?()]|\.(?!\w)|,\s|\s[-–—>]+\s/)) {
    starts.add(words.length);
    words.push(...tokenize(clause).map((w) => w.toLowerCase()));
  }
  return { words, starts };
}

/** What the request asks to do (by its verb, else by an operation's noun), and the index of its verb (-1: none). */
function operationOf(
  request: string,
  words: readonly string[],
  starts: ReadonlySet<number>,
): { op: RequestIntent['op']; verbAt: number } {
  const phrase = PHRASES.find(([pattern]) => pattern.test(request));
  if (LIST_QUESTION.test(request)) return { op: 'list', verbAt: -1 };
  if (COUNT.test(request)) return { op: 'count', verbAt: -1 };
  if (QUESTION.test(request)) return { op: 'read', verbAt: -1 };
  if (phrase) return { op: phrase[1], verbAt: -1 };
  for (const [i, w] of words.entries()) {
    const found = VERBS[w] ?? VERBS[gerundVerb(w, (v) => VERBS[v] !== undefined) ?? ''];
    if (
      found &&
      (!NOUN_VERBS.has(w) ||
        starts.has(i) ||
        CLAUSE_START.has(words[i - 1]!) ||
        // Last of a terse request after a noun ("audit log export requests list"); not after
        // an id or a determiner ("email 4242 draft", "comments on the record") nor before an id.
        (i === words.length - 1 &&
          content(words[i - 1] ?? '') &&
          new RegExp(`(^|\\s)[A-Za-z][\\w']*\\s+${w}\\W*$`, 'i').test(request)))
    ) {
      const op = w === 'make' && words[i + 1] && !MAKE_NEW.has(words[i + 1]!) ? 'update' : found;
      return { op, verbAt: i };
    }
  }
  return { op: VERBS[words.map(nominalVerb).find((v) => v !== undefined) ?? ''], verbAt: -1 };
}

/**
 * The operation where the words say it otherwise than by their first verb: a verb that only
 * says "do" ("create a read QUERY", "perform a SEARCH", "do an UPDATE") by the noun of an
 * operation after it; a part of a data integration that reads ("new STREAM", "Airtable LOADER")
 * as a listing; a method called in code ("calling get_all()", "eventsApi.getPage()") by its
 * name, more surely than the prose around it ("how to define … in getPage()").
 */
function operationSaidOtherwise(
  text: string,
  found: { op: RequestIntent['op']; verbAt: number },
): { op: RequestIntent['op']; verbAt: number } {
  const light = operationNoun(text);
  if (light) return { op: VERBS[light] ?? found.op, verbAt: found.verbAt };
  // Building ("new", "create", "add") a source, a stream or a loader of the API needs its
  // listing: what is created is the integration's part, not an object of the API.
  if (found.op === 'create' && asksForReadingPart(text)) return { op: 'list', verbAt: -1 };
  const method = calledMethodVerb(text);
  if (method && VERBS[method]) return { op: VERBS[method], verbAt: -1 };
  return found;
}

/** Whether a word is said in the plural ("rows", "entries"; not "address" nor "status"). */
const isPlural = (w: string) => /[^su]s$/.test(w) && stem(w) !== w;

/** A word that can name the verb's object: a noun, or a verb as often a noun ("get a RECORD"). */
const nounAfterVerb = (w: string) =>
  processTerm(w).length > 0 && (VERBS[w] === undefined || NOUN_VERBS.has(w));
/**
 * Whether the verb's object is plural ("show ROWS of …" asks for several). The object is the
 * verb's first word that names something ("fetch all ROWS", "remove a RECORD from …"), unless
 * a preposition comes first ("remove from the Projects table").
 */
function pluralObjectAfter(words: readonly string[], verbAt: number): boolean {
  const after = verbAt >= 0 ? words.slice(verbAt + 1) : [];
  // "remove THEM from the bases": a plural pronoun for the objects said before.
  if (/^(them|these|those)$/.test(after[0] ?? '')) return true;
  const objectAt = after.findIndex((w) => PARENT_MARKERS.has(w) || (nounAfterVerb(w) && !QUANTITY.test(w)));
  const object = objectAt >= 0 && !PARENT_MARKERS.has(after[objectAt]!) ? after[objectAt] : undefined;
  return object !== undefined && isPlural(object);
}

/** Whether the verb's object is one item: singular, singled out by a determiner before it. */
function singleObjectAfter(words: readonly string[], verbAt: number): boolean {
  if (verbAt < 0) return false;
  const after = words.slice(verbAt + 1, verbAt + 5);
  const objectAt = after.findIndex((w) => PARENT_MARKERS.has(w) || (nounAfterVerb(w) && !ONE.has(w)));
  const object = after[objectAt];
  return (
    object !== undefined &&
    !PARENT_MARKERS.has(object) &&
    !AMOUNT_NOUNS.has(object) &&
    !isPlural(object) &&
    after.slice(0, objectAt).some((w) => ONE.has(w))
  );
}

/** The terms of the words said in the plural and in the singular (the verb left out). */
function numberOf(words: readonly string[], verbAt: number): { plural: Set<string>; singular: Set<string> } {
  const plural = new Set<string>();
  const singular = new Set<string>();
  for (const [i, w] of words.entries()) {
    if (i === verbAt) continue;
    const t = processTerm(w)[0];
    if (!t) continue;
    if (isPlural(w)) plural.add(t);
    else singular.add(t);
  }
  return { plural, singular };
}

/** Which kind of id the request says it has: an external (its own) or an internal (numeric) one. */
function idKindOf(request: string, nameToken: boolean, withoutIds: string): RequestIntent['idKind'] {
  if (EXTERNAL.test(request)) return 'external';
  if (INTERNAL.test(request)) return 'internal';
  if (nameToken) return 'external';
  return BARE_NUMBER.test(withoutIds) ? 'internal' : undefined;
}

// A participle after a plural noun and before a preposition says which of them ("events DEFINED
// in HubSpot", "records CREATED by a form"): a state of the objects, not the act of the tool
// that defines or creates them.
const POSTNOMINAL =
  /\b([a-z]+[^su\W]s)\s+([a-z]{3,}ed)\s+(?=(in|by|on|at|from|for|with|under|within|inside)\b)/gi;
const withoutModifiers = (text: string) => text.replace(POSTNOMINAL, '$1 ');

const termsOf = (w: string) => [w, stem(w), ...processTerm(w)];

/**
 * The terms only the parent part says. It starts at the first marker after a word naming the
 * object ("what is IN budget item 5 OF campaign …": the budget item is the object, the campaign
 * its parent).
 */
function parentStemsOf(words: readonly string[], starts: ReadonlySet<number>): Set<string> {
  // Each clause has its own object and parent: "… for single records: retrieve A RECORD keyed
  // by field ids" is about a record, whatever the clause before it said.
  const bounds = [...starts, words.length].sort((a, b) => a - b);
  const parent: string[] = [];
  const own = new Set<string>();
  for (const [n, from] of bounds.slice(0, -1).entries()) {
    const clause = words.slice(from, bounds[n + 1]);
    // "a way TO get the tables": `to` before a verb starts what is to be done, not a place.
    const marker = clause.findIndex(
      (w, i) =>
        PARENT_MARKERS.has(w) &&
        !(w === 'to' && VERBS[clause[i + 1] ?? ''] !== undefined) &&
        !(w === 'of' && AMOUNT_NOUNS.has(clause[i - 1] ?? '')) &&
        clause.slice(0, i).some(content),
    );
    const split = marker <= 0 ? clause.length : marker;
    for (const t of clause.slice(0, split).flatMap(termsOf)) own.add(t);
    parent.push(...clause.slice(split + 1).flatMap(termsOf));
  }
  return new Set(parent.filter((t) => !own.has(t)));
}

export function requestIntent(request: string, prefixes: readonly string[]): RequestIntent {
  const { ids, text: withoutIds } = idsIn(request, prefixes);
  // An id, or "this base": one object the caller has in mind.
  const demonstrated = /\bthis\s+([a-z]+)/i.exec(withoutIds)?.[1];
  const named =
    ids.size > 0 ||
    /\b[\w-]*\d[\w-]*\b/.test(withoutIds) ||
    (demonstrated !== undefined && content(demonstrated.toLowerCase()));
  const nameToken = NAME_TOKEN.test(withoutIds);
  NAME_TOKEN.lastIndex = 0;
  const text = withoutFeatureAsking(
    withoutProblemIssue(withoutIds.replace(NAME_TOKEN, ' ')),
    (w) => VERBS[w] !== undefined,
  );
  const { words, starts } = clausedWords(text);
  let { op, verbAt } = operationSaidOtherwise(text, operationOf(request, words, starts));
  const asked = LIST_QUESTION.test(request) || COUNT.test(request) || QUESTION.test(request);
  const pluralObject = pluralObjectAfter(words, verbAt);
  // "get a list of the tables": what is got is a list.
  if ((op === 'get' || op === 'read') && LIST_OF.test(text)) op = 'list';
  else if (op === 'get' && pluralObject) op = 'read';
  const verb = verbAt >= 0 ? words[verbAt]! : undefined;
  const verbTerms = new Set(verb && !words.some((w, i) => i !== verbAt && w === verb) ? termsOf(verb) : []);
  const sense = verb ? VERB_SENSE[verb] : undefined;
  const said = sense ? text.replace(new RegExp(`\\b${verb}\\b`, 'i'), sense) : text;
  // "pass a NEW event", "update with NEW records": where a verb says something other than
  // creating, "new" describes the object; it asks to create nothing.
  const searched = withoutModifiers(
    verb && op !== 'create' && op !== 'upsert' ? said.replace(/\bnew\b/gi, ' ') : said,
  );
  // A question that names no verb ("budget item 9 amount?") reads, and so, less surely, does a
  // bare noun phrase ("email 4242 draft").
  const implicit = op === undefined && !request.trim().endsWith('?');
  if (op === undefined) op = 'read';
  const idKind = idKindOf(request, nameToken, withoutIds);
  return {
    ...(op ? { op } : {}),
    implicit,
    asked,
    ...(idKind ? { idKind } : {}),
    adjectives: new Set([...request.matchAll(ADJECTIVE)].flatMap((m) => termsOf(m[2]!.toLowerCase()))),
    ...numberOf(words, verbAt),
    stems: new Set(words.flatMap(termsOf)),
    verbTerms,
    parentStems: parentStemsOf(words, starts),
    several:
      SEVERAL.test(request) ||
      // "remove rows …", "update the contacts": changing a plural object changes several.
      (pluralObject && (op === 'delete' || op === 'update' || op === 'replace')) ||
      ID_LIST.test(request) ||
      (ids.size > 0 && /\band\b/.test(request) && countIds(request) > 1),
    one: singleObjectAfter(words, verbAt) || (!pluralObject && ONE_ID.test(request)),
    ids,
    named,
    text: searched,
  };
}

function countIds(request: string): number {
  return (
    (request.match(UUID)?.length ?? 0) +
    (request.match(EMAIL)?.length ?? 0) +
    (request.match(/\b[a-z]{3}[A-Z0-9][A-Za-z0-9]{9,}\b/g)?.length ?? 0)
  );
}
