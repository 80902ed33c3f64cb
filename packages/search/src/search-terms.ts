import { memoized, stem } from './word-cache.js';

/**
 * How words become search terms, the same for the catalog and for a query: split (camelCase
 * names included), lowercased, common words dropped, the words users use mapped to the words
 * the catalog uses, then stemmed. Mapping both sides to one term keeps BM25's statistics
 * honest: a row and a record are one term, counted once.
 */

// Spellings that a split on punctuation would break apart or lose.
const PHRASES: [RegExp, string][] = [
  // Chat shorthand and contractions: "whats in …", "can u show", "pls delete".
  [/\bwhat'?s\b/gi, ' what is '],
  [/\b(u|ya)\b/gi, ' you '],
  [/\b(pls|plz|pl[sz]e)\b/gi, ' please '],
  [/\bcustomer[ .-]?io\b/gi, ' customerio '],
  [/\ba\/b\b/gi, ' abtest '],
  [/\be-?mails?\b/gi, ' email '],
  [/\bsign[ -]?ups?\b/gi, ' signup '],
  [/\bhub ?spot\b/gi, ' hubspot '],
  [/\bair ?table\b/gi, ' airtable '],
  [/\bwho ?am ?i\b/gi, ' whoami '],
  [/\bup ?sert/gi, ' upsert'],
  [/\bset ?up\b/gi, ' create '],
  [/\bhow many\b/gi, ' count '],
  [/\bsign(ed)? ?out\b/gi, ' logout '],
  // Being signed in is about who one is, not about logs ("who am I logged in as").
  [/\b(logged|signed) ?in\b/gi, ' identified '],
  [/\broll(s|ed|ing)? ?back\b/gi, ' revert '],
  // "record that a customer placed an order", "log that user 5 signed up": something happened.
  [/\b(record|log|note)\s+that\b/gi, ' $1 an event that '],
  [
    /\b(create|creating|insert|inserting|add|adding) or (update|updating|replace|replacing|overwrite|overwriting)\b/gi,
    ' upsert ',
  ],
  [/\bget(ting)? rid of\b/gi, ' delete '],
  // A feature asked of a library names what it should do, not an adding: "add support for
  // comments", "adds the ability to update a customer", "new operation: delete records".
  [/\b(add|adds|adding|added)\s+(the\s+|an?\s+)?(support|ability|option|feature|possibility)\b/gi, ' '],
  [/\bnew\s+(operation|method|feature|endpoint|action|function)s?\b/gi, ' '],
  [/\bfeature request\b/gi, ' '],
  [/\bspin(ning)? up\b/gi, ' create '],
  [/\b(turn|switch)(ing)? on\b/gi, ' enable '],
  [/\b(turn|switch)(ing)? off\b/gi, ' disable '],
  [/\bhow much\b/gi, ' total '],
  [/\b(in one|in a single) (go|call|request|batch)\b|\bat once\b|\bin bulk\b/gi, ' batch '],
  // An address in a request means a tool that takes people by email.
  [/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, ' email '],
];

/**
 * Splits text into words: camelCase and digits apart, punctuation dropped. Remembered for a few
 * dozen texts, those of the search under way: it splits its request, its title and their clauses
 * twice over (for its intent and text, then for the past requests), each time through every
 * phrase above. A new request's text is new: remembering more would only hold memory.
 */
export const tokenize: (text: string) => readonly string[] = memoized(
  (text) => Object.freeze(splitWords(text)),
  64,
);

function splitWords(text: string): string[] {
  let t = text;
  for (const [pattern, replacement] of PHRASES) t = t.replace(pattern, replacement);
  return t
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

// Words that say nothing about which tool is meant.
const STOP_WORDS = new Set(
  (
    'a an the of to in on for from into onto at by with as and or but not no so if then than ' +
    'is are was were be been being do does did done have has had can could should would will ' +
    'shall may might must i me my mine we us our ours you your it its this that these those ' +
    'there here what which who whom whose when where why how please want need let lets just ' +
    'also some any each only via per like about using use api apis tool tools ' +
    'call calls give gives show tell find know see them their they he she his her him ' +
    'id ids up ' +
    // How developers frame a question about an API, in issues and forums: about the asking,
    // never about which endpoint ("support for …", "the X method fails", "feature request").
    'support supported supports supporting feature features method methods function functions ' +
    'endpoint endpoints work works working fail fails failing failed error errors problem problems ' +
    'bug bugs possible able ability implement implemented implementation documentation docs ' +
    'example examples help trying try tried seem seems still'
  ).split(' '),
);

/**
 * The words users say, mapped to the words the catalog says (several where one word stands for
 * a phrase). Vendors, objects and verbs of the five tool sets; generic enough for any request,
 * not a list of test phrases.
 */
const PRODUCT_SYNONYMS: Record<string, string[]> = {
  // Vendors and products
  cio: ['customerio'],
  cdp: ['customerio'],
  segment: ['customerio'],
  crm: ['hubspot'],
  spreadsheet: ['airtable', 'table'],
  spreadsheets: ['airtable', 'table'],
  sheet: ['airtable', 'table'],
  sheets: ['airtable', 'table'],
};

const OBJECT_SYNONYMS: Record<string, string[]> = {
  // Objects
  row: ['record'],
  rows: ['record'],
  entry: ['record'],
  entries: ['record'],
  column: ['field'],
  columns: ['field'],
  cell: ['field'],
  cells: ['field'],
  database: ['base'],
  databases: ['base'],
  newsletter: ['marketing', 'email'],
  newsletters: ['marketing', 'email'],
  webinar: ['marketing', 'event'],
  webinars: ['marketing', 'event'],
  conference: ['marketing', 'event'],
  attendee: ['participation'],
  attendees: ['participation'],
  participant: ['participation'],
  participants: ['participation'],
  registrant: ['participation'],
  registrants: ['participation'],
  lead: ['contact'],
  leads: ['contact'],
  customer: ['person'],
  someone: ['user'],
  somebody: ['user'],
  customers: ['person'],
  people: ['person'],
  visitor: ['person'],
  extension: ['block'],
  extensions: ['block'],
  file: ['attachment'],
  files: ['attachment'],
  image: ['attachment'],
  pdf: ['attachment'],
  automation: ['workflow'],
  automations: ['workflow'],
  flow: ['workflow'],
  flows: ['workflow'],
  expense: ['spend'],
  expenses: ['spend'],
  cost: ['spend'],
  costs: ['spend'],
  stats: ['statistics'],
  analytics: ['statistics'],
  visit: ['view'],
  visits: ['view'],
  visited: ['view'],
  version: ['revision'],
  versions: ['revision'],
  history: ['revision', 'history'],
  variant: ['variation'],
  variants: ['variation'],
  split: ['abtest'],
  structure: ['schema'],
  access: ['permission'],
  role: ['permission'],
  rights: ['permission'],
  teammate: ['collaborator'],
  teammates: ['collaborator'],
  credential: ['token'],
  credentials: ['token'],
  org: ['enterprise'],
  editor: ['permission'],
  editors: ['permission'],
  viewer: ['permission'],
  owner: ['permission', 'owner'],
  commenter: ['permission'],
  member: ['collaborator', 'member'],
  members: ['collaborator', 'member'],
  coworker: ['collaborator'],
  coworkers: ['collaborator'],
  colleague: ['collaborator'],
  colleagues: ['collaborator'],
};

/** Verbs and amounts: plain English, the same in any catalog. */
const VERB_SYNONYMS: Record<string, string[]> = {
  // Verbs and amounts
  attach: ['link'],
  associate: ['link'],
  connect: ['link'],
  tie: ['link'],
  tied: ['link'],
  linked: ['link'],
  detach: ['unlink'],
  disassociate: ['unlink'],
  dissociate: ['unlink'],
  sync: ['upsert'],
  where: ['filter'],
  whose: ['filter'],
  matching: ['filter'],
  fresh: ['create'],
  all: ['list'],
  every: ['list'],
  retire: ['archive'],
  new: ['create'],
  pull: ['get'],
  save: ['update'],
  kick: ['delete'],
  promote: ['grant'],
  downgrade: ['update', 'permission'],
  upgrade: ['update', 'permission'],
  remove: ['delete'],
  erase: ['delete'],
  drop: ['delete'],
  purge: ['delete'],
  destroy: ['delete'],
  nuke: ['delete'],
  wipe: ['delete'],
  trash: ['delete'],
  scrap: ['delete'],
  add: ['create'],
  insert: ['create'],
  make: ['create'],
  build: ['create'],
  change: ['update'],
  edit: ['update'],
  modify: ['update'],
  patch: ['update'],
  rename: ['update', 'name'],
  fetch: ['get'],
  retrieve: ['get'],
  read: ['get'],
  lookup: ['get'],
  look: ['get'],
  several: ['batch'],
  multiple: ['batch'],
  many: ['batch'],
  bulk: ['batch'],
  bunch: ['batch'],
  revert: ['restore'],
  rollback: ['restore'],
  undo: ['restore', 'discard'],
  duplicate: ['clone'],
  copy: ['clone'],
  revoke: ['delete'],
  unsubscribe: ['unsubscribed'],
};

const SYNONYMS: Record<string, string[]> = { ...PRODUCT_SYNONYMS, ...OBJECT_SYNONYMS, ...VERB_SYNONYMS };

/**
 * The products whose words the vocabulary maps users' words to (Customer.io, HubSpot, Airtable),
 * as search terms: a description of another product keeps its own words' sense (DigitalOcean's
 * "databases" are no Airtable bases, SendGrid's "segments" no Customer.io).
 */
export const VOCABULARY_PRODUCTS: ReadonlySet<string> = new Set(
  Object.values(PRODUCT_SYNONYMS).map(([product]) => stem(product!)),
);

// Past participles that describe a state ("emails created after May", "who deleted a base"),
// kept apart from the verb so that they do not pull in the tools that create or delete.
const PARTICIPLES = new Set(['created', 'deleted', 'updated', 'removed', 'added', 'changed', 'modified']);

// One who is acted on, named after the act (an attendee attends, an invitee is invited): the
// stemmer keeps `attende` apart from `attend`, so the act's stem is added. Long words only, so
// that `coffee` or `degree` are left alone.
const AGENT_NOUN = /^([a-z]{4,})ees?$/;

/**
 * The search terms of one word (none for a common word). Remembered per word (see
 * `word-cache.ts`): the array is shared, and frozen so that no caller changes it for the next.
 */
export const processTerm: (word: string) => readonly string[] = memoized((word) =>
  Object.freeze(termsOfWord(word)),
);

function termsOfWord(word: string): string[] {
  const lower = word.toLowerCase();
  if (STOP_WORDS.has(lower) || lower.length < 2) return [];
  if (PARTICIPLES.has(lower)) return [lower];
  const terms = (SYNONYMS[lower] ?? [lower]).map((w) => stem(w));
  const agent = AGENT_NOUN.exec(lower)?.[1];
  return agent && lower.length >= 7 ? [...terms, stem(agent)] : terms;
}

/** The search terms of a word of another product's description: the verbs' synonyms only. */
export function literalTerm(word: string): readonly string[] {
  const lower = word.toLowerCase();
  if (PRODUCT_SYNONYMS[lower] || OBJECT_SYNONYMS[lower]) return STOP_WORDS.has(lower) ? [] : [stem(lower)];
  return processTerm(word);
}

/** Words the vocabulary maps, for telling a misspelt word from one it knows. */
export function knownWords(): string[] {
  return Object.keys(SYNONYMS);
}

// Words by which a request asks to look (a question, "show", "list") or to change something.
const READ_WORDS = new Set(
  (
    'what which who whom whose how when where is are does do did has have show list get fetch ' +
    'read retrieve view see display open check find search look lookup count total totals ' +
    'details detail info information history status describe exist exists'
  ).split(' '),
);
const WRITE_WORDS = new Set(
  (
    'create add insert make build new update change edit modify patch rename set delete remove ' +
    'erase drop purge destroy send track publish unpublish enroll complete finish resume cancel ' +
    'mark archive move transfer upload upsert replace overwrite clone duplicate copy restore ' +
    'reset rotate grant revoke enable disable turn register link unlink attach detach associate ' +
    'disassociate share unshare invite provision deprovision start extend refresh merge alias ' +
    'identify assign fire sync put tell leave reply subscribe offboard ' +
    'logout deactivate install uninstall schedule fix give take roll define'
  ).split(' '),
);

/** Whether a request asks to look or to change something, when it says only one of the two. */
export function queryIntent(query: string): 'read' | 'write' | undefined {
  let read = false;
  let write = false;
  for (const word of tokenize(query)) {
    const w = word.toLowerCase();
    if (READ_WORDS.has(w)) read = true;
    if (WRITE_WORDS.has(w)) write = true;
  }
  if (read === write) return undefined;
  return read ? 'read' : 'write';
}
