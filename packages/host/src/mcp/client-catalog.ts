import type { Tool } from './sdk.js';

/** The catalog forms: every tool listed, the discovery tools instead, or chosen by the host. */
export type CatalogMode = 'static' | 'dynamic' | 'auto';

export const CATALOG_MODES: readonly CatalogMode[] = ['static', 'dynamic', 'auto'];

/**
 * Where Claude Code (and clients that read the same key) keeps a tool's definition loaded on
 * every turn instead of deferring it behind its own tool search. The discovery tools are the
 * way in to every other tool: deferred, an agent must first find them to find anything.
 */
export const ALWAYS_LOAD_META_KEY = 'anthropic/alwaysLoad';

/** A host tool marked to stay loaded in clients that defer tools. */
export function alwaysLoaded(tool: Tool): Tool {
  return { ...tool, _meta: { ...tool._meta, [ALWAYS_LOAD_META_KEY]: true } };
}

/**
 * A client that hides the tools of its MCP servers behind a search of its own, and loads a
 * tool's schema only once the model asks for it. Such a client gets the static listing from
 * `--catalog auto`: its search then runs over the real tools (one step, each tool's own
 * name and description), where the dynamic catalog would put a second search behind the
 * first. docs/clients.md gives the sources for each.
 */
export interface DeferringClient {
  /** The client as people name it. */
  readonly client: string;
  /** The `clientInfo.name` values it sends (at `initialize`, or in a 2026-07-28 request's envelope). */
  readonly names: readonly string[];
}

export const DEFERRING_CLIENTS: readonly DeferringClient[] = [
  // Tool search is on by default: MCP tools are deferred, ToolSearch loads them.
  { client: 'Claude Code', names: ['claude-code'] },
  // Above about 30 tools the CLI loads only its built-in ones and searches for the rest.
  { client: 'GitHub Copilot CLI', names: ['github-copilot-developer', 'copilot-cli'] },
  // MCP tools are deferred behind the Responses API's tool_search.
  { client: 'Codex', names: ['codex-mcp-client'] },
];

const DEFERRING_NAMES: ReadonlyMap<string, DeferringClient> = new Map(
  DEFERRING_CLIENTS.flatMap((c) => c.names.map((n) => [n, c] as const)),
);

/** The deferring client a `clientInfo.name` names, if any. */
export function deferringClient(clientName: string | undefined): DeferringClient | undefined {
  return clientName === undefined ? undefined : DEFERRING_NAMES.get(clientName);
}

/**
 * The catalog mode a request is served with. A request's `X-MCP-Catalog` header wins (its
 * client knows best how it meets tools), then the operator's `mcp.catalog` when it is not
 * `auto`; under `auto`, a client that defers tools itself gets the static listing, and any
 * other is decided on the number of tools (`auto` stays, for the view to count).
 */
export function catalogModeFor(
  configured: CatalogMode,
  requested: CatalogMode | undefined,
  clientName: string | undefined,
): CatalogMode {
  const mode = requested ?? configured;
  if (mode === 'auto' && deferringClient(clientName)) return 'static';
  return mode;
}
