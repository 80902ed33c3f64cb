/**
 * The host's tools as Vercel AI SDK tools, called in process: no MCP server, client or
 * transport between the agent and the tools. `ai` is an optional peer dependency, loaded only
 * by this entry (`@toolhost/host/ai-sdk`).
 */
import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import type { CallOptions, Host } from './host.js';
import { mcpToolName } from './mcp/tool-names.js';

export interface AiSdkToolsOptions {
  /** Whose credentials the calls use (default: the host's default user). */
  userId?: string;
  /** Only these tools, by canonical (`Set.Tool`) or listed (`Set_Tool`) name; default all. */
  only?: readonly string[];
  /** Hears of each wait of a call (a 429's Retry-After, pacing, a retry's backoff, a token refresh), as `callTool` does. */
  onWait?: CallOptions['onWait'];
}

/**
 * Every tool of the host (or `only` those), keyed by the names the model APIs take (the MCP
 * names: `CrmEventsApi_ListEventTypes`, at most 49 characters), each with the description and
 * input schema an MCP client would list, and an `execute` that calls the host. A success
 * answers the upstream's body (or, in `get_request_schema` mode, the request schema); a
 * failure answers `{ error }` with its code, message and `retryable`, for the model to act on,
 * as an MCP client would read it.
 */
export function tools(host: Host, options: AiSdkToolsOptions = {}): ToolSet {
  const only = options.only ? new Set(options.only) : undefined;
  const set: ToolSet = {};
  for (const info of host.listTools()) {
    const name = mcpToolName(info.name, host.config.mcp.nameSeparator);
    if (only && !only.has(info.name) && !only.has(name)) continue;
    set[name] = tool({
      description: info.description,
      inputSchema: jsonSchema<Record<string, unknown>>(info.inputSchema as JSONSchema7),
      execute: async (args, { abortSignal }) => {
        const outcome = await host.callTool(info.name, args, {
          ...(options.userId ? { userId: options.userId } : {}),
          ...(abortSignal ? { signal: abortSignal } : {}),
          ...(options.onWait ? { onWait: options.onWait } : {}),
        });
        if (!outcome.ok) return { error: outcome.error };
        return outcome.kind === 'schema' ? outcome.schema : outcome.body;
      },
    });
  }
  return set;
}
