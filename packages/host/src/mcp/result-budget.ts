import type { ResultStore } from './result-store.js';
import type { CallToolResult } from './sdk.js';
import { actionableFields } from './summary-fields.js';

/** A query parameter of the tool, by the name the tool takes and the name the API uses. */
export interface QueryParamName {
  name: string;
  apiName: string;
}

export interface ResultBudget {
  maxBytes: number;
  store: ResultStore;
  /** Whose call it was: the stored body is readable by this user only. */
  userId: string;
  /** Canonical and MCP name of the tool called. */
  tool: string;
  mcpName: string;
  /** The tool's query parameters, to say which one carries the next page's cursor. */
  queryParams: readonly QueryParamName[];
}

// Where APIs put the cursor of the next page (HubSpot paging.next.after, Airtable offset,
// webhook payloads cursor, audit log pagination.next), by the key holding it.
const CURSOR_KEYS = new Set([
  'after',
  'offset',
  'cursor',
  'next',
  'nextCursor',
  'next_cursor',
  'nextPageToken',
  'next_page_token',
  'nextOffset',
  'startingAfter',
]);
// API names of a page size, most specific first (Airtable's maxRecords bounds all pages, not one).
const PAGE_SIZE_KEYS = ['pageSize', 'page_size', 'per_page', 'limit', 'count'];
const MAX_SHAPE_KEYS = 40;

const bytesOf = (text: string) => Buffer.byteLength(text);

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return `array(${value.length})`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `object(${Object.keys(value as object).length} keys)`;
  return typeof value;
}

/** The top level of a value: each key with its type, arrays with their length. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return typeOf(value);
  const entries = Object.entries(value as Record<string, unknown>);
  const shape: Record<string, string> = {};
  for (const [key, v] of entries.slice(0, MAX_SHAPE_KEYS)) shape[key] = typeOf(v);
  if (entries.length > MAX_SHAPE_KEYS) shape['…'] = `${entries.length - MAX_SHAPE_KEYS} more keys`;
  return shape;
}

/** The largest array at the top level or one level down: the page of items. */
function mainArray(value: unknown): { path: string; items: unknown[] } | undefined {
  if (Array.isArray(value)) return { path: '', items: value };
  if (value === null || typeof value !== 'object') return undefined;
  let best: { path: string; items: unknown[] } | undefined;
  const consider = (path: string, v: unknown) => {
    if (Array.isArray(v) && v.length > (best?.items.length ?? 0)) best = { path, items: v };
  };
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    consider(key, v);
    if (v && typeof v === 'object' && !Array.isArray(v))
      for (const [inner, w] of Object.entries(v as Record<string, unknown>)) consider(`${key}.${inner}`, w);
  }
  return best;
}

/** The next page's cursor: the first cursor-named key (outside item arrays) within three levels. */
function findCursor(value: unknown): { path: string; key: string; value: string | number } | undefined {
  const queue: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  while (queue.length > 0) {
    const { v, path, depth } = queue.shift()!;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) continue;
    for (const [key, inner] of Object.entries(v as Record<string, unknown>)) {
      const at = path ? `${path}.${key}` : key;
      if (CURSOR_KEYS.has(key) && (typeof inner === 'string' || typeof inner === 'number') && inner !== '')
        return { path: at, key, value: inner };
      if (depth < 2) queue.push({ v: inner, path: at, depth: depth + 1 });
    }
  }
  return undefined;
}

function nextPage(value: unknown, budget: ResultBudget) {
  const cursor = findCursor(value);
  const pageSize = PAGE_SIZE_KEYS.map((key) => budget.queryParams.find((p) => p.apiName === key)).find(
    (p) => p !== undefined,
  );
  const smaller = pageSize ? ` Passing a smaller ${pageSize.name} keeps each page within the budget.` : '';
  if (!cursor) return pageSize ? { how: smaller.trim() } : undefined;
  const param = budget.queryParams.find((p) => p.apiName === cursor.key || p.name === cursor.key);
  return {
    cursor: cursor.value,
    from: cursor.path,
    ...(param ? { argument: param.name } : {}),
    how: param
      ? `Call ${budget.mcpName} again with the same arguments and ${param.name} set to this cursor for the next page.${smaller}`
      : `The response names this cursor at ${cursor.path}.${smaller}`,
  };
}

/**
 * The body's main array, as its length and as many first items as keep the summary within
 * `maxSummaryBytes` (half the budget: room for the rest of the answer).
 */
function addFirstItems(summary: Record<string, unknown>, value: unknown, maxSummaryBytes: number): void {
  const array = mainArray(value);
  if (!array) return;
  const shown: unknown[] = [];
  summary.items = { path: array.path || '(the body)', total: array.items.length, shown: 0, first: shown };
  let size = bytesOf(JSON.stringify(summary));
  for (const item of array.items) {
    const itemBytes = bytesOf(JSON.stringify(item)) + 1;
    if (size + itemBytes > maxSummaryBytes) break;
    shown.push(item);
    size += itemBytes;
  }
  (summary.items as { shown: number }).shown = shown.length;
  if (shown.length === 0 && array.items.length > 0) summary.itemShape = shapeOf(array.items[0]);
}

/**
 * The summary that stands for a result over the budget: status, size, top-level shape, the
 * fields an agent acts on, the next page's cursor and the first items, within the budget.
 */
function summarize(
  value: unknown,
  status: number | undefined,
  textBytes: number,
  stored: { uri: string; expiresAt: number },
  budget: ResultBudget,
) {
  const summary: Record<string, unknown> = {
    truncated: true,
    ...(status === undefined ? {} : { status }),
    bytes: textBytes,
    note: `The result is ${textBytes} bytes, over this server's ${budget.maxBytes}-byte budget: this is a summary. The whole result is the linked resource ${stored.uri} (read it with resources/read) until ${new Date(stored.expiresAt).toISOString()}.`,
    shape: shapeOf(value),
  };
  // What the agent acts on (an id, an error's code, a cursor) with its value, not its type.
  const fields = actionableFields(value, budget.maxBytes / 8);
  if (Object.keys(fields).length > 0) summary.fields = fields;
  const page = nextPage(value, budget);
  if (page) summary.nextPage = page;
  addFirstItems(summary, value, budget.maxBytes / 2);
  let summaryText = JSON.stringify(summary);
  if (bytesOf(summaryText) > budget.maxBytes) {
    // A shape or cursor of extreme size: keep only what is certain to fit.
    summaryText = JSON.stringify({ truncated: true, status, bytes: textBytes, note: summary.note, fields });
  }
  return { summaryText, fields, page };
}

/**
 * Keeps a tool result within `budget.maxBytes` of text (and of structured content). A larger
 * result is kept whole in the result store, private to the caller, and answered with a
 * summary within the budget (status, size, top-level shape, the first items, the next page's
 * cursor and how to ask for it) and a `resource_link` to the whole body.
 */
export function fitResult(
  result: CallToolResult,
  value: unknown,
  status: number | undefined,
  budget: ResultBudget,
): CallToolResult {
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  const textBytes = bytesOf(text);
  const structuredFits =
    result.structuredContent === undefined ||
    bytesOf(JSON.stringify(result.structuredContent)) <= budget.maxBytes;
  if (textBytes <= budget.maxBytes) {
    if (structuredFits) return result;
    // The text carries the same content: drop the copy that does not fit.
    const { structuredContent: _dropped, ...rest } = result;
    return rest;
  }

  const stored = budget.store.put(budget.userId, budget.tool, text);
  const { summaryText, fields, page } = summarize(value, status, textBytes, stored, budget);
  const cursor =
    page && 'cursor' in page && bytesOf(JSON.stringify(page)) <= budget.maxBytes / 8
      ? { nextPage: page }
      : {};
  return {
    content: [
      { type: 'text', text: summaryText },
      {
        type: 'resource_link',
        uri: stored.uri,
        name: `${budget.mcpName} result`,
        mimeType: 'application/json',
        size: textBytes,
        description: `The whole result of ${budget.mcpName}, readable by the caller until ${new Date(stored.expiresAt).toISOString()}.`,
      },
    ],
    // The same fields for clients that act on structured content: an error's as `error`, as
    // in an error within the budget.
    structuredContent: result.isError
      ? { error: fields, truncated: true, resource: stored.uri }
      : { ...fields, truncated: true, resource: stored.uri, ...cursor },
    ...(result._meta ? { _meta: result._meta } : {}),
    ...(result.isError ? { isError: true } : {}),
  };
}
