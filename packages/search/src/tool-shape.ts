import { processTerm, tokenize } from './search-terms.js';
import type { SearchableTool } from './searchable-tool.js';
import { stem } from './word-cache.js';

/**
 * What a tool does, read from its declaration rather than from a word list per tool: the
 * operation (from the HTTP method, the hints and the path's shape), the object it acts on
 * (the path's trailing resource, else the description's object) and the identifiers it takes
 * (from its parameters' id prefixes, formats and names).
 */

/** The operations a request can ask for and a tool can perform. */
export type Operation =
  | 'list'
  | 'get'
  | 'search'
  | 'create'
  | 'update'
  | 'replace'
  | 'upsert'
  | 'delete'
  | 'send'
  | 'link'
  | 'action';

/**
 * What a tool does, as finely as the past requests tell it apart (see `RequestClassifier`): its
 * operation, and whether it acts on several items at once (`update*`) or its path ends in one
 * item's id (`get1`; for a list, the one parent it lists: Airtable's records are listed at
 * `/{baseId}/{tableIdOrName}`). People asking to "update records" from a script and to "fix a
 * record" word it differently. Marking a list by its path too was worth 8 of the 843 tuning
 * questions against merging every list into one kind: a list under one named parent is asked for
 * otherwise than a catalog-wide one ("list my bases").
 */
export const operationKind = (shape: ToolShape): string =>
  `${shape.op}${shape.batch ? '*' : shape.item ? '1' : ''}`;

/** An identifier shape a request can carry and a parameter can take. */
export type IdShape = `prefix:${string}` | 'uuid' | 'email';

export interface ToolShape {
  op: Operation;
  /** For `action` tools, the verb of the path's last segment (stemmed), e.g. `cancel`. */
  actionWord?: string;
  /** That verb as written, e.g. `cancel`. */
  actionVerb?: string;
  /** Acts on several items in one call (a batch path or a description saying so). */
  batch: boolean;
  /** The path ends in an item's placeholder: the tool acts on one identified object. */
  item: boolean;
  /** The object acted on, as search terms (e.g. `properti` for an event's property). */
  head: string[];
  /**
   * The object's own noun, as search terms: the last segment naming it (`email-campaigns` of
   * `/flows/email-campaigns` → email, campaign), else the description's object.
   */
  noun: string[];
  /** A path placeholder takes a state to set (`{subscriberState}`): it sets the objects' state. */
  setsState: boolean;
  /** The object's parents in the path, as search terms (e.g. `event`, `definit`). */
  parents: string[];
  /** The product a description names first (`HubSpot: …` → hubspot), as a search term. */
  vendor?: string;
  /** The part of the product it names next (`Airtable SCIM: …` → scim), as search terms. */
  area?: readonly string[];
  /** The object in words, for people: `property`, `event definition`, `record`. */
  object: string;
  /** The path's placeholders' parameters, in order; the last names the object on item paths. */
  pathParams: readonly string[];
  /** The path with placeholders as `{}`: tools whose paths extend another's act on its children. */
  route: string;
  /** How closely each identifier shape it takes names its object: 1 the object, 0.5 a parent. */
  ids: Map<IdShape, number>;
  /**
   * Whose id names the object, where the declaration says: the caller's own (`{externalEventId}`,
   * "External event id.") or the service's (`{objectId}`, "Internal event id.").
   */
  idKind?: 'internal' | 'external';
  /**
   * Tools with the same key do one thing to one object and differ only in whose id they take
   * it by (internal or external), by email or not, one or a batch. Only tools with an id kind.
   */
  twinKey?: string;
}

// English verbs that, as a path's last segment (`/cancel`, `/batch/archive`, `/moveBase`),
// make the endpoint an action on what precedes it; mapped to the operation they perform.
const SEGMENT_VERBS: Record<string, Operation> = {
  read: 'get',
  get: 'get',
  search: 'search',
  find: 'search',
  create: 'create',
  add: 'create',
  update: 'update',
  upsert: 'upsert',
  delete: 'delete',
  archive: 'delete',
  remove: 'delete',
  send: 'send',
  track: 'send',
  identify: 'send',
  page: 'send',
  screen: 'send',
  group: 'send',
  alias: 'send',
  batch: 'send',
};
// Verbs of actions that are neither a read nor a plain create, update or delete.
const ACTION_VERBS = new Set(
  (
    'cancel complete publish unpublish restore reset refresh logout clone claim grant revoke move ' +
    'enable disable upload attach detach merge rotate schedule'
  ).split(' '),
);
// Segments that say "this API's version", never an object.
const VERSION = /^v\d+$/i;
// Descriptions that say the tool acts on several items at once.
const SEVERAL = /\b(several|many|batch|bulk|in one batch|at once)\b/i;
const DETERMINERS = new Set('a an the one all every several its their each'.split(' '));
// Words after which a description's object ends ("delete a property OF a definition").
const OBJECT_ENDS = new Set('of in from to by with for into on as and or'.split(' '));

/** A PUT of one item under another that sends nothing but their ids: an association. */
function linksItems(tool: SearchableTool): boolean {
  const pathParams = tool.endpoint?.pathParams ?? [];
  const properties = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  return (
    pathParams.length >= 2 && required.every((p) => pathParams.includes(p)) && !properties.includes('mode')
  );
}

const UPSERT = /create or (replace|update)|upsert/i;
// A GET's description says whether it lists or reads one when its path cannot (`/{base}/{table}`
// lists a table's records; `/emails/{id}/draft` reads one draft).
const READ_VERBS: Record<string, Operation> = { list: 'list', get: 'get', read: 'get', search: 'search' };

function describedRead(description: string): Operation | undefined {
  const first = words(description.slice(description.indexOf(':') + 1))[0];
  return first ? READ_VERBS[first] : undefined;
}

/** Stemmed search terms of a path segment or phrase (`event-definitions` → event, definit). */
function terms(text: string): string[] {
  return tokenize(text).flatMap((w) => processTerm(w));
}

function words(text: string): string[] {
  return tokenize(text).map((w) => w.toLowerCase());
}

/** The object of a description's first clause: "HubSpot: delete a property of …" → property. */
function describedObject(description: string): string[] {
  // Asides go first: "alias (merge, link) an anonymous id" has its object after the comma.
  const clause =
    description
      .slice(description.indexOf(':') + 1)
      .replace(/\([^)]*\)/g, ' ')
      .split(/[,;.:]/)[0] ?? '';
  const ws = words(clause);
  let i = 0;
  // Skip the verb(s) and determiners before the object.
  while (i < ws.length && (DETERMINERS.has(ws[i]!) || i === 0)) i += 1;
  const object: string[] = [];
  // "a campaign's assets": the campaign owns the object; it stands for it only when nothing
  // else is said ("a user's or group's access").
  const owners: string[] = [];
  for (; i < ws.length && !OBJECT_ENDS.has(ws[i]!); i += 1) {
    // A determiner after the object starts a clause about it ("all bases THE token can access").
    if (DETERMINERS.has(ws[i]!) && object.length > 0) break;
    if (ws[i + 1] === 's') owners.push(ws[i]!);
    else if (ws[i] !== 's' && !DETERMINERS.has(ws[i]!)) object.push(ws[i]!);
  }
  return object.length > 0 ? object : owners;
}

function vendorOf(description: string): { vendor?: string; area?: readonly string[] } {
  const colon = description.indexOf(':');
  const prefix = colon > 0 ? tokenize(description.slice(0, colon)) : [];
  const vendor = prefix[0] ? processTerm(prefix[0])[0] : undefined;
  // "Airtable enterprise HyperDB table:", "HubSpot transactional email:": a part of the product
  // named before the colon; a longer run is a sentence, not a name. Counted in words as
  // written: the tokenizer splits "HyperDB" in two, which made that name look like a sentence.
  const written = colon > 0 ? description.slice(0, colon).trim().split(/\s+/) : [];
  const area = written.length >= 2 && written.length <= 4 && prefix[1] ? processTerm(prefix[1]) : [];
  return { ...(vendor ? { vendor } : {}), ...(area.length > 0 ? { area } : {}) };
}

/** A path segment in words, singular: `event-definitions` → `event definition`. */
function singular(segment: string): string {
  return words(segment)
    .map((w) => w.replace(/ies$/, 'y').replace(/([^su])s$/, '$1'))
    .join(' ');
}

/** Identifier shapes a parameter's schema says it takes: an id prefix (`rec…`), a UUID, an email. */
export function paramShapes(name: string, schema: Record<string, unknown>): IdShape[] {
  const shapes: IdShape[] = [];
  const text = `${typeof schema.description === 'string' ? schema.description : ''}`;
  // "app…", "tbl… or name", "Acting user (usr…)"; not a long text cut short ("… will be ret…"),
  // as other servers' tool lists often end theirs.
  const cut = text.trimEnd().endsWith('…') && text.split(/\s+/).length > 5;
  for (const m of text.matchAll(/\b([a-z]{3})…/g))
    if (!cut || m.index + m[0].length < text.trimEnd().length) shapes.push(`prefix:${m[1]}`);
  if (schema.format === 'uuid') shapes.push('uuid');
  // `email_id`, `crm_email_id` name an email message by its id; `sender_email` is an address.
  const emailObject = /(id|ids|identifier|name|language)$/i.test(name) || /\bemail id\b/i.test(text);
  if (schema.format === 'email' || (!emailObject && (/email/i.test(name) || /\bemail\b/i.test(text))))
    shapes.push('email');
  const items = schema.items as Record<string, unknown> | undefined;
  if (items && typeof items === 'object' && shapes.length === 0)
    return paramShapes(name, { ...items, description: text });
  return shapes;
}

/** What a tool's path and method say it does: a verb segment leads (`/batch/archive`), else the method. */
function operationOfPath(
  tool: SearchableTool,
  segments: readonly string[],
  item: boolean,
): { op: Operation; actionWord?: string; actionVerb?: string; trailing: number } {
  const method = tool.endpoint?.method.toUpperCase() ?? (tool.hints.readOnly ? 'GET' : 'POST');
  const last = segments.at(-1) ?? '';
  if (!item && last) {
    // `/batch/archive`, `/email-create`, `/moveBase`, `/restore-to-draft`: the verb leads.
    const verb = words(last).find((w) => SEGMENT_VERBS[w] !== undefined || ACTION_VERBS.has(w));
    if (verb && (segments.length > 1 || SEGMENT_VERBS[verb] !== undefined)) {
      const op = SEGMENT_VERBS[verb] ?? 'action';
      let trailing = segments.length - 1;
      if (segments[trailing - 1] === 'batch') trailing -= 1;
      return op === 'action' ? { op, actionWord: stem(verb), actionVerb: verb, trailing } : { op, trailing };
    }
  }
  return { op: operationOfMethod(tool, method, item), trailing: segments.length };
}

function operationOfMethod(tool: SearchableTool, method: string, item: boolean): Operation {
  if (method === 'GET') return describedRead(tool.description) ?? (item ? 'get' : 'list');
  if (method === 'DELETE') return 'delete';
  if (method === 'PATCH') return 'update';
  if (method === 'PUT')
    return UPSERT.test(tool.description) ? 'upsert' : linksItems(tool) ? 'link' : 'replace';
  return tool.hints.readOnly ? 'get' : UPSERT.test(tool.description) ? 'upsert' : 'create';
}

const isParam = (s: string) => s.startsWith('{');

/**
 * The object: the run of literal segments that ends the path (before an action verb), or the
 * placeholder's name for paths of placeholders only; its parents are the segments before it
 * (from `prefix` to `end`, exclusive).
 */
function objectOfPath(
  tool: SearchableTool,
  segments: readonly string[],
  trailing: number,
  namespaces: ReadonlySet<string>,
) {
  const versionAt = segments.findLastIndex((s) => VERSION.test(s));
  const prefix = versionAt >= 0 ? versionAt + 1 : namespaces.has(segments[0] ?? '') ? 1 : 0;
  const objectSegments: string[] = [];
  let i = trailing - 1;
  while (i >= prefix && isParam(segments[i]!)) i -= 1;
  for (; i >= prefix && !isParam(segments[i]!); i -= 1) objectSegments.unshift(segments[i]!);
  const described = describedObject(tool.description);
  const head = new Set(objectSegments.flatMap(terms));
  for (const t of described.flatMap((w) => processTerm(w))) head.add(t);
  const before = segments.slice(prefix, Math.max(prefix, i + 1));
  const parents = new Set(before.map((s) => (isParam(s) ? placeholderWords(s) : s)).flatMap(terms));
  for (const h of head) parents.delete(h);
  return { objectSegments, described, head, parents, before };
}

/**
 * Twins: the same operation on the same object under the same literal path, told apart only by
 * how the object is identified (internal or external id, by email, one or a batch).
 */
function twinKeyOf(
  tool: SearchableTool,
  op: Operation,
  actionVerb: string | undefined,
  object: { objectSegments: string[]; described: string[]; head: Set<string>; before: string[] },
  values: readonly string[],
): string {
  const where = object.before
    .filter((s) => !isParam(s))
    .flatMap(terms)
    .filter((t) => !object.head.has(t));
  const objectWords = new Set(
    singular(
      object.objectSegments.length > 0
        ? object.objectSegments.join(' ')
        : object.described.slice(0, 2).join(' '),
    ).split(' '),
  );
  return [
    tool.toolSet,
    op,
    actionVerb ?? '',
    [...objectWords].sort().join(' '),
    [...new Set(where)].sort().join(' '),
    values.join(' '),
  ].join('|');
}

/**
 * The id shapes the tool takes, weighted: the last placeholder of an item path is the object
 * itself (1); earlier ones are parents (0.5); other parameters 0.4. On a path of placeholders
 * only, the last is the object only if the description names it so: `/{base}/{table}` lists
 * records, its table being where they are.
 */
function idWeights(
  tool: SearchableTool,
  segments: readonly string[],
  item: boolean,
  object: { objectSegments: string[]; head: Set<string> },
): Map<IdShape, number> {
  const properties =
    (tool.inputSchema.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
  const pathParams = tool.endpoint?.pathParams ?? [];
  const ids = new Map<IdShape, number>();
  const lastName = terms(placeholderWords(segments.at(-1) ?? ''));
  const isObject = item && (object.objectSegments.length > 0 || lastName.some((t) => object.head.has(t)));
  for (const [name, schema] of Object.entries(properties)) {
    const position = pathParams.indexOf(name);
    const weight =
      position >= 0 && position === pathParams.length - 1 && isObject ? 1 : position >= 0 ? 0.5 : 0.4;
    for (const shape of paramShapes(name, schema)) ids.set(shape, Math.max(ids.get(shape) ?? 0, weight));
  }
  // `/email-create`, `/email-upsert`: the path says the people are given by email.
  if (!item && /email-/.test(segments.at(-1) ?? '')) ids.set('email', 1);
  return ids;
}

/**
 * The shape of one tool. `namespaces` are path segments shared by most tools of its tool
 * set (`meta`, `marketing`): a prefix of the API, not an object.
 */
export function toolShape(tool: SearchableTool, namespaces: ReadonlySet<string>): ToolShape {
  const segments = (tool.endpoint?.path ?? '').split('/').filter((s) => s.length > 0);
  const item = isParam(segments.at(-1) ?? '');
  const { op, actionWord, actionVerb, trailing } = operationOfPath(tool, segments, item);
  const object = objectOfPath(tool, segments, trailing, namespaces);
  const { objectSegments, described, head, parents } = object;
  // Placeholders that take a value rather than an id (`{subscriberState}`) are part of what is done.
  const values = segments.filter((s) => isParam(s) && placeholderWords(s) === s.slice(1, -1)).sort();
  const properties =
    (tool.inputSchema.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
  const idKind = idKindOf(tool, segments, properties);
  return {
    op,
    ...(actionWord ? { actionWord, actionVerb } : {}),
    // "batch" in the path, "several" in the description, or a plural object to change
    // ("delete records by primary key"): several items per call.
    batch:
      segments.includes('batch') ||
      SEVERAL.test(tool.description) ||
      (op !== 'list' && op !== 'search' && /^[a-z]+[^su']s'?$/.test(described[0] ?? '')),
    item,
    head: [...head],
    noun:
      objectSegments.length > 0 ? terms(objectSegments.at(-1)!) : described.flatMap((w) => processTerm(w)),
    setsState: values.length > 0,
    parents: [...parents],
    ...vendorOf(tool.description),
    object: singular(
      objectSegments.length > 0 ? objectSegments.join(' ') : described.slice(0, 2).join(' ') || 'item',
    ),
    pathParams: tool.endpoint?.pathParams ?? [],
    route: segments.map((x) => (isParam(x) ? '{}' : x)).join('/'),
    ids: idWeights(tool, segments, item, object),
    ...(idKind ? { idKind } : {}),
    ...(idKind ? { twinKey: twinKeyOf(tool, op, actionVerb, object, values) } : {}),
  };
}

/**
 * Whose id the tool takes its object by, from its placeholders' names, its parameters'
 * descriptions, then its own description ("by external event ids", "by its internal object id").
 */
function idKindOf(
  tool: SearchableTool,
  segments: readonly string[],
  properties: Record<string, Record<string, unknown>>,
): 'internal' | 'external' | undefined {
  const placeholders = segments.filter((s) => s.startsWith('{')).join(' ');
  const params = Object.values(properties)
    .map((p) => (typeof p.description === 'string' ? p.description : ''))
    .join(' ');
  for (const text of [placeholders, params, tool.description]) {
    if (/external/i.test(text)) return 'external';
    if (/internal|\{objectId\}/i.test(text)) return 'internal';
  }
  return undefined;
}

/** A placeholder's name without its id suffix: `{tableIdOrName}` → `table`. */
function placeholderWords(segment: string): string {
  return segment.replace(/^\{|\}$/g, '').replace(/(Id|Guid|IdOrName|Identifier|Name)$/g, '');
}

/** First path segments shared by more than a third of a tool set's tools: API prefixes (`meta`). */
export function namespaceSegments(tools: readonly SearchableTool[]): Set<string> {
  const bySet = new Map<string, SearchableTool[]>();
  for (const t of tools) bySet.set(t.toolSet, [...(bySet.get(t.toolSet) ?? []), t]);
  const namespaces = new Set<string>();
  for (const group of bySet.values()) {
    const counts = new Map<string, number>();
    for (const t of group) {
      const s = (t.endpoint?.path ?? '').split('/').filter((x) => x.length > 0)[0];
      if (s && !s.startsWith('{')) counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    for (const [s, n] of counts) if (group.length >= 6 && n > group.length / 3) namespaces.add(s);
  }
  return namespaces;
}
