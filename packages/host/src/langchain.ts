/**
 * The host's tools as LangChain.js tools, called in process: no MCP server, client or transport
 * between the agent and the tools. `@langchain/core` is an optional peer dependency, loaded
 * only by this entry (`@toolhost/host/langchain`).
 */
import { ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import type { Host } from './host.js';
import { type InProcessToolsOptions, inProcessCatalog } from './in-process-catalog.js';

export type LangChainToolsOptions = InProcessToolsOptions;

/**
 * The host's tools as LangChain structured tools, chosen as `@toolhost/host/ai-sdk` chooses
 * (the MCP names, `catalog: 'auto'` giving the discovery tools above 100 tools, `only` by name
 * or glob). LangChain checks the arguments against each input schema first (a miss throws its
 * `ToolInputParsingException`, naming the parameter, which an agent's tool node hands back to
 * the model) and the host checks them again. A success answers the upstream's body; a host
 * error answers `{ error }` with its code, message and `retryable`, as an error `ToolMessage`
 * (`status: 'error'`) when invoked with a tool call, so that the model reads it and the run goes on.
 */
export function tools(host: Host, options: LangChainToolsOptions = {}): StructuredToolInterface[] {
  return inProcessCatalog(host, options).map((t) =>
    tool(
      async (args: Record<string, unknown>, config) => {
        const { value, failed } = await t.call(args, config.signal);
        const id = config.toolCall?.id;
        if (!id || !failed) return value;
        return new ToolMessage({
          content: JSON.stringify(value),
          tool_call_id: id,
          name: t.name,
          status: 'error',
        });
      },
      { name: t.name, description: t.description, schema: t.inputSchema, verboseParsingErrors: true },
    ),
  );
}
