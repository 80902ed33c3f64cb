import { VERBS } from './request-intent.js';
import { processTerm, tokenize } from './search-terms.js';
import { stem } from './word-cache.js';

/**
 * The title of a request written as an issue or a forum thread is: its title, a colon, the start
 * of its body ("Record create fails: whenever I try to create a record with some predefined keys
 * …", "Upserts on table: The Airtable API is supporting upsert functionality now …"). The title
 * says what is wanted; the body adds what surrounds it (an error message, another product, how
 * the app is built), words that pull the ranking toward a sibling of the tool the title names.
 *
 * Only a title that says an operation by one of the verbs users say (`isOperationVerb`: create,
 * upserts, read, updated …) counts as one: "Investigate Airtable API: … pulling in data from
 * Airtable" or "Support additional data in airtable: when we update the user's record …" tell what
 * someone is working on, and the body what they ask of the API (on the tuning sets, weighing
 * every title lost the sixth set, whose threads are mostly apps', four questions). Without a colon
 * there is no title: a request of one sentence, as an agent writes it, is all one part.
 */
export function requestTitle(text: string): string | undefined {
  const clauses = text.split(/:\s+/);
  // A label before the title ("docs: …", "[ENG-3906] feat(hubspot/marketing): …", "Airtable: …")
  // is skipped; the title is the first clause after it that has a rest after it.
  const at = clauses.findIndex((clause, i) => i < clauses.length - 1 && !isLabel(clause));
  const title = at >= 0 ? clauses[at]! : undefined;
  return title !== undefined && tokenize(title).some(isOperationVerb) ? title : undefined;
}

// The stems of the verbs users say for an operation: request-intent.ts has filled `VERBS` by the
// time this module runs (it imports that one, not the other way round).
const VERB_STEMS: ReadonlySet<string> = new Set(Object.keys(VERBS).map((v) => stem(v)));

/** Whether a word is one of the verbs users say for an operation, however inflected ("upserts", "updated"). */
const isOperationVerb = (word: string): boolean => VERB_STEMS.has(stem(word.toLowerCase()));

/**
 * A clause of fewer than two words that name something, once tags in brackets and a scope in
 * parentheses are left out: the label of a commit or of a tracker ("fix(source-airtable)",
 * "[Bug]", "Customer.io").
 */
function isLabel(clause: string): boolean {
  const words = tokenize(clause.replace(/\[[^\]]*\]|\([^)]*\)/g, ' '));
  return words.filter((w) => processTerm(w).length > 0).length < 2;
}
