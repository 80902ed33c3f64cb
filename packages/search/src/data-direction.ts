import { type RequestIntent, verbOperation } from './request-intent.js';
import { stem } from './word-cache.js';

/**
 * Which way a request moves data with a product it names, as people describe an integration:
 * INTO it ("save new Google Sheets rows to Airtable", "log Contact Us messages to Airtable")
 * writes there; OUT OF it ("fetch the events from Airtable", "Create Asana tasks from new Airtable
 * records") reads from it. The verb may say either ("create" the Asana tasks, "post" to Slack):
 * what the product is asked for is the other end's.
 */
export type DataDirection = 'into' | 'out';

const INTO = new Set(['to', 'into']);
const OUT = new Set(['from']);
// Words between the preposition and the product's name: "to AN Airtable base", "from OUR Airtable".
const DETERMINERS = new Set(['a', 'an', 'the', 'my', 'our', 'your', 'their', 'its', 'new', 'existing']);
// How far after a product's name "to" may follow for the product's things to be what goes there:
// "Airtable RECORDS to Slack", "Airtable records IN VIEWS to Google Sheets". Right after the name,
// "to" begins what the product is asked to do ("allow Airtable to perform typecasting").
const THINGS_AFTER_NAME = { min: 2, max: 4 };
// Words before a product's name that make its "to" an infinitive's: "an option FOR the Airtable
// node to accept field IDs", "ASK the Airtable API to try …" say what it should do, not where.
const INFINITIVE_SUBJECT = new Set([
  'for',
  'ask',
  'asks',
  'allow',
  'allows',
  'let',
  'lets',
  'want',
  'need',
  'tell',
]);
// Words after "to" that are no place the data could go.
const NO_PLACE = new Set(['it', 'them', 'this', 'that', 'be', 'have', 'do', 'use', 'make']);

/**
 * The direction, where the request names a product (`vendors`, as search terms) after "to" or
 * "from", not both; or, naming none there, sends the product's things to another place.
 */
export function dataDirection(query: string, vendors: ReadonlySet<string>): DataDirection | undefined {
  // Each word's clause: a product's things are sent on in the clause that names them ("How to pass
  // a datetime in Airtable: I am trying to pass …" sends nothing out of Airtable).
  const clauses = query.toLowerCase().split(/[:;!?]|\.(?!\w)/);
  const clauseOf = clauses.flatMap((c, n) => (c.match(/[a-z0-9]+/g) ?? []).map(() => n));
  const words = clauses.flatMap((c) => c.match(/[a-z0-9]+/g) ?? []);
  const isVendor = (at: number) => {
    const w = words[at] ?? '';
    return vendors.has(w) || vendors.has(stem(w)) || vendors.has(w + (words[at + 1] ?? ''));
  };
  const after = (i: number) => {
    let at = i + 1;
    while (DETERMINERS.has(words[at] ?? '')) at += 1;
    return at;
  };
  let into = false;
  let out = false;
  words.forEach((w, i) => {
    if ((!INTO.has(w) && !OUT.has(w)) || !isVendor(after(i))) return;
    if (INTO.has(w)) into = true;
    else out = true;
  });
  if (into || out) return into === out ? undefined : into ? 'into' : 'out';
  const sameClause = (a: number, b: number) => clauseOf[a] === clauseOf[b];
  return thingsSentElsewhere(words, isVendor, after, sameClause) ? 'out' : undefined;
}

/**
 * Whether the request sends a product's things to another place ("Post new Airtable records to
 * Slack", "export airtable tables to csv"): "to" a while after the product's name, followed by a
 * place that is no product of the catalog, no verb and no number ("set to 0").
 */
function thingsSentElsewhere(
  words: readonly string[],
  isVendor: (at: number) => boolean,
  after: (i: number) => number,
  sameClause: (a: number, b: number) => boolean,
): boolean {
  const before = (v: number) => {
    let at = v - 1;
    while (DETERMINERS.has(words[at] ?? '')) at -= 1;
    return words[at] ?? '';
  };
  const named = words.flatMap((_, i) => (isVendor(i) && !INFINITIVE_SUBJECT.has(before(i)) ? [i] : []));
  const near = (v: number, i: number) =>
    i - v >= THINGS_AFTER_NAME.min && i - v <= THINGS_AFTER_NAME.max && sameClause(v, i);
  return words.some((w, i) => {
    if (!INTO.has(w)) return false;
    if (!named.some((v) => near(v, i))) return false;
    const at = after(i);
    const place = words[at] ?? '';
    return (
      place !== '' &&
      !/^[0-9]/.test(words[i + 1] ?? '') &&
      !isVendor(at) &&
      !verbOperation(place) &&
      !NO_PLACE.has(place)
    );
  });
}

/**
 * The operation a request asks of the product, given the direction it moves data: reading out of
 * it is listing what is there (unless the request names one item, deletes or already searches),
 * writing into it is creating (unless it already says a change, a send or a link).
 */
export function directedOperation(intent: RequestIntent, direction: DataDirection): RequestIntent['op'] {
  const op = intent.op;
  // A question asks what is there ("who has access to the Airtable base?"), whichever way.
  if (intent.asked) return op;
  if (direction === 'out') {
    const reads = op === 'read' || (op === 'get' && intent.ids.size === 0 && !intent.one);
    return intent.implicit || reads || op === 'create' || op === 'update' || op === 'action' || op === 'send'
      ? 'list'
      : op;
  }
  return intent.implicit || op === 'read' || op === 'list' || op === 'get' || op === 'action' ? 'create' : op;
}

/**
 * The request's intent with the operation its data's direction with a product of `vendors` (see
 * `dataDirection`) makes it; no longer implicit where a direction says it.
 */
export function directedIntent(
  intent: RequestIntent,
  query: string,
  vendors: ReadonlySet<string>,
): RequestIntent {
  const direction = dataDirection(query, vendors);
  return direction ? { ...intent, op: directedOperation(intent, direction), implicit: false } : intent;
}
