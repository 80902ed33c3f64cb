import { randomBytes } from 'node:crypto';
import type { Host } from '../host-api.js';
import { ToolNameMap } from '../tool-names.js';
import { type CatalogView, CatalogViews, narrowingOf } from './catalog-views.js';
import { clientNameOf } from './client-identity.js';
import { ConfirmationStates } from './confirmation-state.js';
import type { QueryParamName } from './result-budget.js';
import { ResultStore, type ResultStoreOptions } from './result-store.js';
import type { CacheableMethod, CacheHint, Server, ServerContext } from './sdk.js';
import { ToolSetSkills } from './skills.js';

/**
 * Prepares the state every MCP server of this host shares (the catalog views with their tool
 * lists, the name map, the store of results over the size budget, the confirmation keys, the
 * audit log), once, so that `tools/list` answers a prepared array and a
 * fresh Server per HTTP session costs only the object itself. With `mcp.catalog: dynamic` the
 * list is the three discovery tools instead of every tool.
 */
export function prepareMcpServingState(host: Host) {
  const mcp = host.config.mcp;
  const names = new ToolNameMap(host.listTools(), mcp.nameSeparator);
  const views = new CatalogViews(host, names);
  const whole = views.whole;
  return {
    names,
    views,
    listed: whole.listed,
    /** The host's own tools served here (discovery, previews), by name, for checking their arguments. */
    hostTools: whole.hostTools,
    /** The operator's audit log, if turned on. */
    audit: host.serving.auditLog,
    /** Whether preview_tool_call and apply_preview are served (some tool can write). */
    previews: whole.previews,
    instructions: whole.instructions,
    discovery: whole.discovery,
    maxResultBytes: mcp.maxResultBytes,
    results: new ResultStore({ ttlSeconds: mcp.resultTtlSeconds, ...sharedResults(host) }),
    /** The tool sets' skills (workflows, ids, paging, pitfalls), read at the first request for them. */
    skills: new ToolSetSkills(host.serving.skills, host.serving.logger),
    queryParams: new Map<string, readonly QueryParamName[]>(),
    /** The canonical names of the exposed tools, for explaining a name that is not one of them. */
    exposed: whole.exposed,
    warmed: false,
    /** The warm-up started after the first tools/list: closing waits for it, not an import half done. */
    warming: undefined as Promise<void> | undefined,
    cacheHints: cacheHintsFor(mcp.resultTtlSeconds),
    confirmations: confirmationStatesOf(host),
  };
}

/**
 * How 2026-07-28 confirmations are signed: with replicas, a key every one derives from
 * TOOLHOST_TOKEN_KEY, so any replica takes the answer to a question another asked; alone, a
 * key of this process.
 */
function confirmationStatesOf(host: Host): ConfirmationStates {
  const replicas = host.serving.replicas;
  return new ConfirmationStates(replicas ? replicas.signingKey('mcp-request-state') : randomBytes(32));
}

/** How long a client may keep what does not change while the host runs: the tool list. */
const LIST_TTL_MS = 5 * 60_000;

/**
 * The cache hints of MCP 2026-07-28 (`ttlMs`, `cacheScope`) for each listing and read. The tool
 * list is the same for every caller until the host restarts with another configuration, so any
 * cache may keep it a while; the results a caller's calls stored are theirs alone (`private`),
 * their list changes with every large call, and a stored result never changes before it expires.
 */
function cacheHintsFor(resultTtlSeconds: number): Partial<Record<CacheableMethod, CacheHint>> {
  return {
    'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
    'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
    'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
    'resources/list': { ttlMs: 0, cacheScope: 'private' },
    'resources/read': { ttlMs: Math.min(60_000, resultTtlSeconds * 1000), cacheScope: 'private' },
  };
}

/** What every MCP server of a host shares, sessions and single requests alike: see `prepareMcpServingState`. */
export type McpServingState = ReturnType<typeof prepareMcpServingState>;

/** With replicas sharing Redis, large results are shared too: any replica serves their links. */
function sharedResults(host: Host): Pick<ResultStoreOptions, 'shared' | 'onShareFailed'> {
  const results = host.serving.replicas?.results;
  return results ? { shared: results, onShareFailed: (e) => results.shareFailed(e) } : {};
}

/** The catalog view a request sees: narrowed by its HTTP headers, if it sent any, and fit to its client. */
export function viewFor(mcpState: McpServingState, ctx: ServerContext, server: Server): CatalogView {
  return mcpState.views.view(narrowingOf(ctx.http?.req?.headers), clientNameOf(server, ctx));
}

/** The tool's query parameters by tool and API name, for the next-page hint of a summary. */
export function queryParamsOf(
  host: Host,
  mcpState: McpServingState,
  tool: string,
): readonly QueryParamName[] {
  let params = mcpState.queryParams.get(tool);
  if (!params) {
    params = host.serving.queryParameters(tool);
    mcpState.queryParams.set(tool, params);
  }
  return params;
}
