import type { CallOptions, Host, ToolInfo } from './host.js';
import { AUTO_CATALOG_MAX_TOOLS } from './mcp/catalog-views.js';
import {
  CALL_TOOL,
  DESCRIBE_TOOLS,
  DiscoveryCatalog,
  discoveryTools,
  SEARCH_TOOLS,
} from './mcp/discovery-tools.js';
import { ToolNameMap } from './mcp/tool-names.js';
import { globMatcher } from './tool-selection.js';

/** What an in-process adapter hands a model, chosen as `serve` chooses for an MCP client. */
export interface InProcessCatalogOptions {
  /** Only tools matching these names or globs, canonical (`GridApi.List*`) or listed (`GridApi_List*`); default all. */
  only?: readonly string[];
  /**
   * `static`: every tool; `dynamic`: the three discovery tools (`search_tools`, `describe_tools`,
   * `call_tool`) over them; `auto`: static up to 100 tools, dynamic above, as over MCP (a model
   * API takes at most 128 tools per request). Default: the host's `mcp.catalog` (`auto` unless set).
   */
  catalog?: 'auto' | 'static' | 'dynamic';
}

/** One tool as an adapter builds it: its listed name, description, input schema, and what a call answers. */
export interface InProcessTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** A success's value (the upstream body, or a mode tool's request schema), or `{ error }`, for the model. */
  call(args: Record<string, unknown>, options: CallOptions): Promise<unknown>;
}

async function answer(host: Host, name: string, args: unknown, options: CallOptions): Promise<unknown> {
  const outcome = await host.callTool(name, args, options);
  if (!outcome.ok) return { error: outcome.error };
  return outcome.kind === 'schema' ? outcome.schema : outcome.body;
}

/**
 * The tools an in-process adapter (AI SDK, LangChain, OpenAI Agents) gives a model: the same
 * catalog choice as over MCP, so that embedding the host never hands a model 200 tools where
 * MCP would hand it the discovery tools.
 */
export function inProcessCatalog(host: Host, options: InProcessCatalogOptions = {}): InProcessTool[] {
  const names = new ToolNameMap(host.listTools(), host.config.mcp.nameSeparator);
  const matches = options.only ? globMatcher([...options.only]) : undefined;
  const chosen = host
    .listTools()
    .filter((t) => !matches || matches(t.name) || matches(names.mcpName(t.name)));
  const mode = options.catalog ?? host.config.mcp.catalog ?? 'auto';
  const dynamic = mode === 'dynamic' || (mode === 'auto' && chosen.length > AUTO_CATALOG_MAX_TOOLS);
  if (!dynamic) {
    return chosen.map((info: ToolInfo) => ({
      name: names.mcpName(info.name),
      description: info.description,
      inputSchema: info.inputSchema as Record<string, unknown>,
      call: (args, call) => answer(host, info.name, args, call),
    }));
  }
  const catalog = new DiscoveryCatalog(host, names, chosen);
  const toolSets = [...new Set(chosen.map((t) => t.toolSet))];
  const calls: Record<string, InProcessTool['call']> = {
    [SEARCH_TOOLS]: async (args) => {
      const found = await catalog.search(args);
      return found.ok ? found.value : { error: found.error };
    },
    [DESCRIBE_TOOLS]: async (args) => {
      const described = catalog.describe(args);
      return described.ok ? described.value : { error: described.error };
    },
    [CALL_TOOL]: async (args, call) => {
      const name = typeof args.name === 'string' ? catalog.resolve(args.name) : undefined;
      if (!name)
        return {
          error: {
            code: 'unknown_tool',
            message: `No such tool: ${String(args.name)}. Use search_tools to find tools by what they do.`,
            retryable: false,
          },
        };
      const key = typeof args.idempotency_key === 'string' ? { idempotencyKey: args.idempotency_key } : {};
      return answer(host, name, args.arguments ?? {}, { ...call, ...key });
    },
  };
  return discoveryTools(toolSets, chosen.length).map((t) => ({
    name: t.name,
    description: t.description ?? '',
    inputSchema: t.inputSchema as Record<string, unknown>,
    call: calls[t.name]!,
  }));
}
