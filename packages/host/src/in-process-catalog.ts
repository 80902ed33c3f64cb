import type { ToolOutcome } from '@toolhost/core';
import { didYouMean } from '@toolhost/engine/internal';
import type { ConfirmWrite } from '@toolhost/write-safety';
import { ConfigError } from './config/load-config.js';
import { globMatcher } from './config/tool-selection.js';
import type { CallOptions, Host, ToolInfo } from './host.js';
import { catalogForm } from './mcp/catalog-views.js';
import type { CatalogMode } from './mcp/client-catalog.js';
import {
  APPLY_PREVIEW,
  CALL_TOOL,
  DESCRIBE_TOOLS,
  DiscoveryCatalog,
  discoveryTools,
  PREVIEW_TOOL_CALL,
  previewTools,
  SEARCH_TOOLS,
} from './mcp/discovery-tools.js';
import { checkHostToolArguments } from './mcp/host-tool-arguments.js';
import type { Tool } from './mcp/sdk.js';
import { ToolNameMap } from './tool-names.js';

/** What an in-process adapter (AI SDK, LangChain, OpenAI Agents) hands a model, chosen as `serve` chooses for an MCP client. */
export interface InProcessToolsOptions {
  /** Only tools matching these names or globs, canonical (`GridApi.List*`) or listed (`GridApi_List*`); default all. */
  only?: readonly string[];
  /**
   * `static`: every tool; `dynamic`: the three discovery tools (`search_tools`, `describe_tools`,
   * `call_tool`) over them; `auto`: static up to 100 tools, dynamic above, as over MCP (a model
   * API takes at most 128 tools per request). Default: the host's `mcp.catalog` (`auto` unless set).
   */
  catalog?: CatalogMode;
  /** Whose credentials the calls use (default: the host's default user). */
  userId?: string;
  /** Hears of each wait of a call (a 429's Retry-After, pacing, a retry's backoff, a token refresh), as `callTool` does. */
  onWait?: CallOptions['onWait'];
  /**
   * With `tools.confirmWrites`: how to ask the person before a write is sent (true only on a
   * yes). Without it such a write answers `confirmation_required` with a preview that
   * `apply_preview` sends once the person agrees, as for an MCP client that cannot be asked.
   */
  confirm?: ConfirmWrite;
}

/**
 * What a call answers the model: a success's value (the upstream body, a mode tool's request
 * schema, a preview), or `{ error }` with its code, message and `retryable` (`failed`).
 */
export interface InProcessAnswer {
  value: unknown;
  failed: boolean;
}

/** One tool as an adapter builds it: its listed name, description, input schema, and what a call answers. */
export interface InProcessTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  call(args: Record<string, unknown>, signal?: AbortSignal): Promise<InProcessAnswer>;
}

const failure = (error: unknown): InProcessAnswer => ({ value: { error }, failed: true });

const answer = (outcome: ToolOutcome): InProcessAnswer =>
  !outcome.ok
    ? failure(outcome.error)
    : { value: outcome.kind === 'schema' ? outcome.schema : outcome.body, failed: false };

const HIDDEN = 'is not among the tools given to this agent';

/**
 * The tools `only` names, in either spelling; a name or glob that matches none is an error (a
 * slip would leave the agent without the tool), as for `tools.allow`.
 */
function only(all: readonly ToolInfo[], names: ToolNameMap, patterns: readonly string[]): ToolInfo[] {
  const chosen = new Set<ToolInfo>();
  for (const pattern of patterns) {
    const matches = globMatcher(pattern);
    const found = all.filter((t) => matches(t.name) || matches(names.mcpName(t.name)));
    if (found.length === 0)
      throw new ConfigError(
        `only: '${pattern}' matches no tool of this host; tools are named <ToolSet>.<Tool> or <ToolSet>_<Tool>.${didYouMean(
          pattern,
          all.map((t) => t.name),
          "'",
        )}`,
      );
    for (const t of found) chosen.add(t);
  }
  return all.filter((t) => chosen.has(t));
}

/**
 * The tools an in-process adapter gives a model: the catalog MCP would list for the same
 * tools (`catalogForm`), so that embedding the host never hands a model 200 tools where MCP
 * would hand it the discovery tools, and the preview tools beside any tool that can write.
 */
export function inProcessCatalog(host: Host, options: InProcessToolsOptions = {}): InProcessTool[] {
  const all = host.listTools();
  const names = new ToolNameMap(all, host.config.mcp.nameSeparator);
  const chosen = options.only ? only(all, names, options.only) : all;
  const { dynamic, writable } = catalogForm(chosen, options.catalog ?? host.config.mcp.catalog ?? 'auto');
  const exposed = new Set(chosen.map((t) => t.name));
  const catalog = new DiscoveryCatalog(host, names, chosen, wholeCatalogOf(host, names));
  const callOptions = callOptionsOf(options);
  const calls = hostToolCalls(host, catalog, { exposed, dynamic, callOptions });
  // The host's own tools check their arguments as over MCP: the frameworks may not.
  const own = (t: Tool): InProcessTool => ({
    name: t.name,
    description: t.description ?? '',
    inputSchema: t.inputSchema as Record<string, unknown>,
    call: async (args, signal) => {
      const refused = checkHostToolArguments(t, args);
      return refused ? answer(refused) : calls[t.name]!(args, signal);
    },
  });
  const tools = dynamic
    ? discoveryTools([...new Set(chosen.map((t) => t.toolSet))], chosen.length).map(own)
    : chosen.map((info: ToolInfo) => ({
        name: names.mcpName(info.name),
        description: info.description,
        inputSchema: info.inputSchema as Record<string, unknown>,
        call: async (args: Record<string, unknown>, signal?: AbortSignal) =>
          answer(await host.callTool(info.name, args, callOptions(signal))),
      }));
  return writable ? [...tools, ...previewTools().map(own)] : tools;
}

/** Each host's whole catalog, whose one index every adapter searches: each built its own (9 MB, a second). */
const wholeCatalogs = new WeakMap<Host, DiscoveryCatalog>();

function wholeCatalogOf(host: Host, names: ToolNameMap): DiscoveryCatalog {
  const known = wholeCatalogs.get(host);
  if (known) return known;
  const whole = new DiscoveryCatalog(host, names);
  wholeCatalogs.set(host, whole);
  return whole;
}

/** A call's options from the adapter's: its user, wait listener, confirmation, signal and key. */
function callOptionsOf(options: InProcessToolsOptions) {
  return (signal: AbortSignal | undefined, key?: unknown): CallOptions => ({
    ...(options.userId ? { userId: options.userId } : {}),
    ...(options.onWait ? { onWait: options.onWait } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    ...(signal ? { signal } : {}),
    ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
  });
}

/** What each of the host's own tools (discovery and preview) does, in process. */
function hostToolCalls(
  host: Host,
  catalog: DiscoveryCatalog,
  given: {
    exposed: ReadonlySet<string>;
    dynamic: boolean;
    callOptions: (signal: AbortSignal | undefined, key?: unknown) => CallOptions;
  },
): Record<string, InProcessTool['call']> {
  const { exposed, dynamic, callOptions } = given;
  const unknownTool = (name: unknown) =>
    failure({
      code: 'unknown_tool',
      message: dynamic
        ? `No such tool: ${String(name)}. Use search_tools to find tools by what they do.`
        : `No such tool among those given to this agent: ${String(name)}.`,
      retryable: false,
    });
  return {
    [SEARCH_TOOLS]: async (args) => {
      const found = await catalog.search(args);
      return found.ok ? { value: found.value, failed: false } : failure(found.error);
    },
    [DESCRIBE_TOOLS]: async (args) => {
      const described = catalog.describe(args);
      return described.ok ? { value: described.value, failed: false } : failure(described.error);
    },
    [CALL_TOOL]: async (args, signal) => {
      const name = catalog.resolve(args.name as string);
      if (!name) return unknownTool(args.name);
      return answer(
        await host.callTool(name, args.arguments ?? {}, callOptions(signal, args.idempotency_key)),
      );
    },
    [PREVIEW_TOOL_CALL]: async (args) => {
      const name = catalog.resolve(args.name as string);
      if (!name) return unknownTool(args.name);
      const outcome = await host.previewToolCall(name, args.arguments ?? {}, callOptions(undefined));
      return outcome.ok && outcome.kind === 'preview'
        ? { value: outcome.preview, failed: false }
        : answer(outcome);
    },
    [APPLY_PREVIEW]: async (args, signal) => {
      const applyOnly = { tools: exposed, hiddenBy: HIDDEN };
      const id = args.preview_id as string;
      return answer(await host.applyPreview(id, { ...callOptions(signal, args.idempotency_key), applyOnly }));
    },
  };
}
