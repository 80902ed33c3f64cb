/**
 * The host's tools as Vercel AI SDK tools, called in process: no MCP server, client or
 * transport between the agent and the tools. `ai` is an optional peer dependency, loaded only
 * by this entry (`@toolhost/host/ai-sdk`).
 */
import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import type { Host } from './host.js';
import { type InProcessToolsOptions, inProcessCatalog } from './in-process-catalog.js';

export type AiSdkToolsOptions = InProcessToolsOptions;

/**
 * The host's tools as a model should get them, keyed by the names the model APIs take (the MCP
 * names: `CrmEventsApi_ListEventTypes`, at most 49 characters), each with the description and
 * input schema an MCP client would list, and an `execute` that calls the host. As over MCP,
 * `catalog: 'auto'` (the host's default) gives every tool up to 100 and the three discovery
 * tools above (`search_tools`, `describe_tools`, `call_tool`), with `preview_tool_call` and
 * `apply_preview` beside any tool that writes; `only` narrows by name or glob. A success
 * answers the upstream's body (or, in `get_request_schema` mode, the request schema); a failure
 * answers `{ error }` with its code, message and `retryable`, for the model to act on, as an
 * MCP client would read it.
 */
export function tools(host: Host, options: AiSdkToolsOptions = {}): ToolSet {
  const set: ToolSet = {};
  for (const t of inProcessCatalog(host, options)) {
    set[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.inputSchema as JSONSchema7),
      execute: async (args, { abortSignal }) => (await t.call(args, abortSignal)).value,
    });
  }
  return set;
}
