import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { didYouMean, quoted } from '@toolhost/engine/internal';
import type { Host, ToolInfo } from '../host-api.js';
import type { ToolNameMap } from '../tool-names.js';
import { CATALOG_MODES, type CatalogMode, catalogModeFor } from './client-catalog.js';
import { DiscoveryCatalog, discoveryInstructions, discoveryTools, previewTools } from './discovery-tools.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { listedTool } from './listing.js';
import type { Tool } from './sdk.js';
import { skillUri } from './skills.js';

/**
 * The most tools `--catalog auto` lists as they are; above it, the dynamic catalog. OpenAI's
 * API and VS Code take at most 128 tools per request, and the client's own tools and other
 * servers' share them: 100 leaves 28 for those. Every tool set alone fits (GridApi is 96 with
 * the two preview tools: 98); all five together (216) do not.
 */
export const AUTO_CATALOG_MAX_TOOLS = 100;

/**
 * The catalog these tools make in a mode: dynamic (the discovery tools instead of the tools)
 * for `dynamic`, and for `auto` when the listing with the preview tools would pass the limit;
 * the preview tools whenever one of them can write. MCP's views and the in-process adapters
 * decide alike.
 */
export function catalogForm(
  tools: readonly ToolInfo[],
  mode: CatalogMode,
): { dynamic: boolean; writable: boolean } {
  const writable = tools.some((t) => !t.hints.readOnly);
  const listedCount = tools.length + (writable ? 2 : 0);
  return {
    writable,
    dynamic: mode === 'dynamic' || (mode === 'auto' && listedCount > AUTO_CATALOG_MAX_TOOLS),
  };
}

/** Headers by which an HTTP client narrows what it sees, per request, within what the host exposes. */
export const TOOLSETS_HEADER = 'x-mcp-toolsets';
export const TOOLS_HEADER = 'x-mcp-tools';
export const READONLY_HEADER = 'x-mcp-readonly';
/** The catalog form a client asks for (`static`, `dynamic` or `auto`), over the operator's and the client rules. */
export const CATALOG_HEADER = 'x-mcp-catalog';

/** What a request narrowed the catalog to: any of the three, all applying together, and the form it asked for. */
export interface Narrowing {
  toolSets?: ReadonlySet<string>;
  tools?: ReadonlySet<string>;
  readOnly?: boolean;
  catalog?: CatalogMode;
}

/** One catalog as one client sees it: the listing, the instructions and what may be called. */
export interface CatalogView {
  listed: Tool[];
  instructions: string;
  /** Set when this view is the dynamic catalog. */
  discovery: DiscoveryCatalog | undefined;
  /** Whether preview_tool_call and apply_preview are served (some tool can write). */
  previews: boolean;
  /** The host's own tools served in this view (discovery, previews), by name, for checking their arguments. */
  hostTools: ReadonlyMap<string, Tool>;
  /** The canonical names of the tools in this view. */
  exposed: ReadonlySet<string>;
}

const list = (value: string | string[] | null | undefined) =>
  (Array.isArray(value) ? value.join(',') : (value ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * Request headers as Node (`headers`, or `headersDistinct` with each occurrence apart) or the
 * Fetch API holds them.
 */
export type RequestHeaders =
  | IncomingHttpHeaders
  | NodeJS.Dict<string[]>
  | { get(name: string): string | null };

const NARROWING_HEADERS = [TOOLSETS_HEADER, TOOLS_HEADER, READONLY_HEADER, CATALOG_HEADER] as const;

/** Each occurrence of a header the client sent; one where the headers joined them already. */
function occurrencesOf(headers: RequestHeaders, name: string): string[] | undefined {
  if (typeof headers.get === 'function') {
    const value = (headers as { get(n: string): string | null }).get(name);
    return value === null ? undefined : [value];
  }
  const value = (headers as IncomingHttpHeaders | NodeJS.Dict<string[]>)[name];
  return value === undefined ? undefined : [value].flat();
}

/**
 * Names every occurrence lists: repeated narrowing headers (a gateway's and the client's, say)
 * each narrow, so a tool must satisfy all of them.
 */
function everyOccurrence(occurrences: readonly string[]): Set<string> {
  const [first = '', ...rest] = occurrences;
  const names = new Set(list(first));
  for (const occurrence of rest) {
    const these = new Set(list(occurrence));
    for (const n of names) if (!these.has(n)) names.delete(n);
  }
  return names;
}

const TRUE = /^(1|true|yes)$/i;

/**
 * The narrowing an HTTP request's headers ask for; undefined when they ask for none. Pass Node's
 * `headersDistinct` where there is one: joined repeats could not be told from one list.
 */
export function narrowingOf(headers: RequestHeaders | undefined): Narrowing | undefined {
  if (!headers) return undefined;
  const [toolSets, tools, readOnly, catalog] = NARROWING_HEADERS.map((h) => occurrencesOf(headers, h));
  // An unknown catalog form is no request for one: the host's choice stands.
  const mode = CATALOG_MODES.find((m) => m === list(catalog)[0]?.toLowerCase());
  if (toolSets === undefined && tools === undefined && readOnly === undefined && mode === undefined)
    return undefined;
  const narrowing: Narrowing = {};
  if (toolSets !== undefined) narrowing.toolSets = everyOccurrence(toolSets);
  if (tools !== undefined) narrowing.tools = everyOccurrence(tools);
  // Any occurrence asking for read-only narrows: a repeat never widens.
  if (readOnly !== undefined) narrowing.readOnly = list(readOnly).some((v) => TRUE.test(v));
  if (mode !== undefined) narrowing.catalog = mode;
  return narrowing;
}

/**
 * Why a request's X-MCP-Toolsets is refused: a name of no tool set this host serves (misspelt, or
 * hidden by the operator) would narrow to less than the client meant, silently. Refused like
 * an unknown `--tool-sets` name at start; undefined when every name is served.
 */
export function unknownToolSets(req: IncomingMessage, served: readonly string[]): string | undefined {
  if (req.headers[TOOLSETS_HEADER] === undefined) return undefined;
  const unknown = [...new Set(list(req.headers[TOOLSETS_HEADER]))].filter((n) => !served.includes(n));
  if (unknown.length === 0) return undefined;
  const named = unknown.map(quoted).join(', ');
  return `X-MCP-Toolsets: ${named} ${unknown.length === 1 ? 'is not a tool set' : 'are not tool sets'} this host serves (served: ${served.join(', ') || 'none'}).${unknown.map((n) => didYouMean(n, served)).join('')}`;
}

/**
 * What a session transport passes with a POST's messages so that the server's handlers see its
 * narrowing (`ctx.http.req`): the narrowing resolved from every occurrence of the headers, one
 * header each, and nothing at all (no object, no cost) for the requests that send none.
 */
export function narrowingRequest(req: IncomingMessage): { request: Request } | undefined {
  const narrowing = requestNarrowing(req);
  return (
    narrowing && {
      request: new Request('http://toolhost.invalid/mcp', { headers: narrowingHeaders(narrowing) }),
    }
  );
}

/** A Node request's narrowing, from each occurrence of its headers; undefined when it sends none. */
export function requestNarrowing(req: IncomingMessage): Narrowing | undefined {
  // `headersDistinct` is made on first use: only for the requests that narrow.
  if (!NARROWING_HEADERS.some((h) => req.headers[h] !== undefined)) return undefined;
  return narrowingOf(req.headersDistinct);
}

/** A narrowing as the one header of each kind that means exactly it. */
export function narrowingHeaders(n: Narrowing): [string, string][] {
  const headers: [string, string][] = [];
  if (n.toolSets) headers.push([TOOLSETS_HEADER, [...n.toolSets].join(',')]);
  if (n.tools) headers.push([TOOLS_HEADER, [...n.tools].join(',')]);
  if (n.readOnly !== undefined) headers.push([READONLY_HEADER, String(n.readOnly)]);
  if (n.catalog) headers.push([CATALOG_HEADER, n.catalog]);
  return headers;
}

/**
 * A key that is the same for the same narrowing, however spelled, and different for any other:
 * a header left out (no narrowing) is never the same as one naming something.
 */
export function narrowingKey(n: Narrowing): string {
  return JSON.stringify([
    n.toolSets ? [...n.toolSets].sort() : null,
    n.tools ? [...n.tools].sort() : null,
    n.readOnly === true,
    n.catalog ?? '',
  ]);
}

/**
 * Builds the views of one host's catalog: the whole one, and, on demand, the narrowed ones
 * HTTP requests ask for (kept, a few at most: clients send the same headers every time).
 */
export class CatalogViews {
  readonly whole: CatalogView;
  /** The tool sets the host serves: the names X-MCP-Toolsets may give. */
  readonly toolSets: readonly string[];
  private readonly narrowed = new Map<string, CatalogView>();
  /** Every tool as `tools/list` shows it, by canonical name: made once, shared by every view. */
  private readonly listedTools: ReadonlyMap<string, Tool>;
  /** The whole catalog's search (its index built once, at the first search of any view). */
  private readonly search: DiscoveryCatalog;

  constructor(
    private readonly host: Host,
    private readonly names: ToolNameMap,
  ) {
    const tools = host.listTools();
    this.listedTools = new Map(tools.map((t) => [t.name, listedTool(t, names.mcpName(t.name))]));
    this.search = new DiscoveryCatalog(host, names, tools);
    this.whole = this.build(tools, host.config.mcp.catalog);
    this.toolSets = [...new Set(tools.map((t) => t.toolSet))].sort();
  }

  /**
   * The view for a request's narrowing (the whole one without) and its client (`clientInfo.name`:
   * a client that defers tools itself gets the static listing from `auto`). Narrowing never adds
   * a tool.
   */
  view(narrowing: Narrowing | undefined, clientName?: string): CatalogView {
    const configured = this.host.config.mcp.catalog;
    const mode = catalogModeFor(configured, narrowing?.catalog, clientName);
    if (!narrowing && mode === configured) return this.whole;
    const key = narrowingKey({ ...narrowing, catalog: mode });
    let view = this.narrowed.get(key);
    if (!view) {
      const n: Narrowing = narrowing ?? {};
      const tools = this.host
        .listTools()
        .filter(
          (t) =>
            (!n.toolSets || n.toolSets.has(t.toolSet)) &&
            (!n.tools || n.tools.has(t.name) || n.tools.has(this.names.mcpName(t.name))) &&
            (!n.readOnly || t.hints.readOnly),
        );
      view = this.build(tools, mode);
      // Bounded: distinct narrowings come from configured clients, but headers are the caller's.
      if (this.narrowed.size >= 64) this.narrowed.delete(this.narrowed.keys().next().value as string);
      this.narrowed.set(key, view);
    }
    return view;
  }

  /** Where the instructions send an agent for a tool set's workflows: its skill, if it ships one. */
  private skillsNote(toolSets: readonly string[]): string {
    const sets = new Set(toolSets);
    const uris = this.host.serving.skills.filter((s) => sets.has(s.toolSet)).map((s) => skillUri(s.folder));
    return uris.length === 0
      ? ''
      : ` Before a multi-step task, read the skill of its tool set (its workflows, ids, paging and pitfalls), a resource: ${uris.join(', ')}.`;
  }

  private build(tools: readonly ToolInfo[], mode: CatalogMode): CatalogView {
    const { dynamic, writable } = catalogForm(tools, mode);
    const toolSets = [...new Set(tools.map((t) => t.toolSet))];
    const all = tools.map((t) => this.listedTools.get(t.name)!);
    const own = [
      ...(dynamic ? discoveryTools(toolSets, tools.length) : []),
      ...(writable ? previewTools(dynamic) : []),
    ];
    return {
      listed: [...(dynamic ? [] : all), ...own],
      hostTools: new Map(own.map((t) => [t.name, t])),
      instructions:
        (dynamic ? discoveryInstructions(toolSets, tools.length) : SERVER_INSTRUCTIONS) +
        this.skillsNote(toolSets),
      discovery: dynamic ? new DiscoveryCatalog(this.host, this.names, tools, this.search) : undefined,
      previews: writable,
      exposed: new Set(tools.map((t) => t.name)),
    };
  }
}
