import {
  BASELINE_SCOPE,
  type HostScope,
  scopeForToolCall,
  TOOLS_READ,
  TOOLS_WRITE,
} from '../auth/front-door/scopes.js';
import type { ToolInfo } from '../host-api.js';
import {
  APPLY_PREVIEW,
  CALL_TOOL,
  DESCRIBE_TOOLS,
  PREVIEW_TOOL_CALL,
  SEARCH_TOOLS,
} from '../mcp/discovery-tools.js';

/** Finds a plugin tool by the name a client calls it (its MCP name, or canonical in `call_tool`). */
export type ToolLookup = (name: string) => ToolInfo | undefined;

/** The host's own tools that send nothing upstream. */
const READING_HOST_TOOLS = new Set([SEARCH_TOOLS, DESCRIBE_TOOLS, PREVIEW_TOOL_CALL]);

/**
 * The scope a JSON-RPC message (or a batch) needs: `tools:write` where any `tools/call` in it
 * would call a tool that writes, else `tools:read`. Known before the message reaches an MCP
 * server, so that a token without the scope is answered 403 (step-up) and nothing runs.
 */
export function scopeForMessage(message: unknown, lookup: ToolLookup): HostScope {
  for (const m of [message].flat()) {
    if (!m || typeof m !== 'object' || (m as { method?: unknown }).method !== 'tools/call') continue;
    const params = (m as { params?: { name?: unknown; arguments?: unknown } }).params;
    if (scopeForCall(params?.name, params?.arguments, lookup) === TOOLS_WRITE) return TOOLS_WRITE;
  }
  return BASELINE_SCOPE;
}

function scopeForCall(name: unknown, args: unknown, lookup: ToolLookup): HostScope {
  if (typeof name !== 'string') return TOOLS_READ;
  if (READING_HOST_TOOLS.has(name)) return TOOLS_READ;
  if (name === APPLY_PREVIEW) return TOOLS_WRITE;
  if (name === CALL_TOOL) {
    const inner = args as { name?: unknown; arguments?: unknown } | undefined;
    // call_tool cannot call itself or apply a preview: no deeper than one level.
    return typeof inner?.name === 'string' && inner.name !== CALL_TOOL
      ? scopeForCall(inner.name, inner.arguments, lookup)
      : TOOLS_READ;
  }
  const tool = lookup(name);
  // An unknown name runs nothing: the server answers it as unknown.
  return tool ? scopeForToolCall({ readOnly: tool.hints.readOnly, arguments: args }) : TOOLS_READ;
}
