import { tokenize } from './search-terms.js';

/**
 * How developers phrase a request in issues and forums, beside plain English: a feature asked of
 * a library ("add a … method", "feat: add …"), a method called in code (`getPage()`), a verb that
 * only says something is done ("perform a search").
 */

// "add" before a part of a library in the same clause asks a library's makers for a feature ("add
// a Get Form METHOD", "add a WAY to query fields", "add `campaigns` STREAM"): what the feature
// does is said by the words after it, not by adding. So before a part of the asker's own software
// ("add an Airtable PLUGIN", "add api ROUTE to sync …", "add Airtable SUPPORT for …"). Words no
// tool of the catalog acts on (not "action" nor "option", which automation and select fields have).
const FEATURE_ADD =
  /\badd\b(?=[^.,:;!?()]{0,60}\b(methods?|functions?|streams?|endpoints?|params?|parameters?|way|ability|capability|functionality|features?|helpers?|commands?|operations?|wrappers?|plugins?|pieces?|routes?|support|integrations?|connectors?|nodes?|modules?)\b)/gi;
// A title that says it asks for a feature ("feat(airtable): add …", "[Feature]: Add …",
// "Feature request: add …"): the "add" right after it is the asking.
const FEATURE_TITLE =
  /^(\W*(?:feat|feature|feature request|enhancement|request)\W*(?:\([^)]*\))?\s*[:\]-]\s*(?:\W\s*)?)add\b/i;
// A verb that says only that something is done, and the noun of the operation done, its object:
// not a noun past a preposition ("do ten records PER query").
const LIGHT_VERB =
  /\b(create|make|run|do|perform|execute)\s+(?:(?!(?:per|in|on|of|for|from|to|with|by|at)\s)\w+\s+){0,3}(query|search|lookup|update|upsert|insert)\b/i;
// A part of a data integration that reads from the API: a source, a stream of it, a loader, a
// reader, an extractor, a tap ("Source Airtable: new stream Collaborators", "Create Airtable
// loader", "tap-airtable"): what it needs is the listing of what it reads, whatever the verb
// that asks for it ("new", "create", "add").
const READING_PART = /\b(?:source|streams?|loaders?|readers?|extractors?|taps?|tap-[a-z]+)\b/i;
// A method called in code: `create()`, `table.upsert()`, `getPage()`, `get_all()`.
const CODE_METHOD = /(?<![\w-])([a-z]+)(?:[A-Z][a-z0-9]*|_[a-z0-9]+)*\(\)/;

// "Issue" that reports a problem, not a tracker's issue: a title led by it ("Issue with
// create(): …"; not "issues with the label bug", which asks for issues), or a sentence that
// calls something one ("this is an issue when …").
const PROBLEM_ISSUE =
  /^(\W*)issues?(?=\s+(?:with|in|when|on|using|while)\b[^.!?:]{0,80}:)|\b(?:is|was|it's|are)\s+(?:an?|one)\s+issue\b/i;

// A commit's or a pull request's type that leads its title ("fix: …", "fix(airtable): …",
// "[bugfix] …"): it says the change repairs code, not that the request updates data.
const COMMIT_FIX = /^(\W*)(?:bug|hot)?fix(?=(?:\([^)]*\))?!?:|\])/i;

/**
 * `text` without the words that report a problem rather than ask for something: "issue" where it
 * names no tracker's issue, and a "fix" that labels a commit or a pull request.
 */
export function withoutProblemIssue(text: string): string {
  return text
    .replace(COMMIT_FIX, (_m, lead: string) => `${lead} `)
    .replace(PROBLEM_ISSUE, (_m, lead: string | undefined) => `${lead ?? ''} `);
}

/**
 * `text` without the "add" that asks a library for a feature: before a part of a library, or
 * after a feature's title where a verb (`isVerb`, lower-case) after it says what the feature does
 * ("feat: add find record action"; not "feature request: add records in bulk").
 */
export function withoutFeatureAsking(text: string, isVerb: (word: string) => boolean): string {
  const plain = text.replace(FEATURE_ADD, ' ');
  const title = FEATURE_TITLE.exec(plain);
  if (!title) return plain;
  const after = plain.slice(title[0].length);
  const rest = after.split(/[.:;!?()]/)[0] ?? '';
  const says = tokenize(rest).some((w) => w.toLowerCase() !== 'add' && isVerb(w.toLowerCase()));
  return says ? `${title[1]} ${after}` : plain;
}

/** The operation's noun after a verb that only says it is done: "perform a SEARCH" → search. */
export function operationNoun(text: string): string | undefined {
  return LIGHT_VERB.exec(text)?.[2]?.toLowerCase();
}

/** Whether the request asks for a part of a data integration that reads from the API. */
export const asksForReadingPart = (text: string): boolean => READING_PART.test(text);

/** The first word of a method called in code: `eventsApi.getPage()` → get. */
export function calledMethodVerb(text: string): string | undefined {
  return CODE_METHOD.exec(text)?.[1];
}
