/**
 * The scopes of the host's MCP endpoint, shared by the protected resource (which enforces them)
 * and the host's own authorization server (which grants them and shows them on its consent
 * page). Two levels, as a person reasons about an agent: it may read, or it may also change.
 *
 * - `tools:read`: list, search and describe tools, call tools that only read, ask a write tool
 *   for its request schema (`mode: "get_request_schema"`, nothing sent) and preview a write
 *   (`preview_tool_call`, nothing sent).
 * - `tools:write`: everything `tools:read` allows, and tools that write (create, update,
 *   delete, send) and `apply_preview`.
 *
 * `tools:write` includes `tools:read`, so a client asks for one scope or the other, never both.
 */

export const TOOLS_READ = 'tools:read';
export const TOOLS_WRITE = 'tools:write';

/** Every scope the host understands, weakest first (the resource metadata's `scopes_supported`). */
export const HOST_SCOPES = [TOOLS_READ, TOOLS_WRITE] as const;

export type HostScope = (typeof HOST_SCOPES)[number];

/** What each scope lets a client do, in the words a consent page shows a person. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<HostScope, string>> = {
  [TOOLS_READ]: 'See the tools and call the ones that only read your data',
  [TOOLS_WRITE]: 'Also call the tools that create, change or delete your data',
};

/** Each scope with the scopes it includes (itself among them). */
const INCLUDES: Readonly<Record<HostScope, readonly HostScope[]>> = {
  [TOOLS_READ]: [TOOLS_READ],
  [TOOLS_WRITE]: [TOOLS_READ, TOOLS_WRITE],
};

export function isHostScope(scope: string): scope is HostScope {
  return (HOST_SCOPES as readonly string[]).includes(scope);
}

/** The host scopes a token's scopes grant, with what each includes; other scopes are ignored. */
export function grantedScopes(tokenScopes: Iterable<string>): Set<HostScope> {
  const granted = new Set<HostScope>();
  for (const scope of tokenScopes) if (isHostScope(scope)) for (const s of INCLUDES[scope]) granted.add(s);
  return granted;
}

/** Whether a token with these scopes may do what `needed` allows. */
export function allows(tokenScopes: Iterable<string>, needed: HostScope): boolean {
  return grantedScopes(tokenScopes).has(needed);
}

/** The scope a tool call needs: what the tool can do, not what its name says. */
export interface ToolCallScopeInput {
  /** Whether the tool only reads (its `readOnly` hint; `readOnlyHint` in a listing). */
  readOnly: boolean;
  /** The call's arguments: a write tool asked only for its request schema sends nothing. */
  arguments?: unknown;
}

/** The scope needed to call a tool with these arguments. */
export function scopeForToolCall(call: ToolCallScopeInput): HostScope {
  if (call.readOnly) return TOOLS_READ;
  const mode = (call.arguments as { mode?: unknown } | undefined)?.mode;
  return mode === 'get_request_schema' ? TOOLS_READ : TOOLS_WRITE;
}

/** The scope any request of the MCP endpoint needs (initialize, tools/list, …). */
export const BASELINE_SCOPE: HostScope = TOOLS_READ;
