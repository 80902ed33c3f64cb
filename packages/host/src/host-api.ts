// The host's API as types only: what an embedder and the transports (http/, stdio/, mcp/) see
// of a host. `createHost` (host.ts) fills it; the transports import nothing else of it, so that
// the serving layers stay apart from how the host composes its services.
import type { BehaviorHints, JsonSchema, ToolOutcome, ToolPlugin } from '@toolhost/core';
import type { SignInProvider } from '@toolhost/credentials';
import type { ConfirmWrite, PreviewOutcome } from '@toolhost/write-safety';
import type { CallWaitObserver } from './call-waits.js';
import type { ResolvedHostConfig } from './config/host-config.js';
import type { ServingSupport } from './serving-support.js';

/**
 * A tool as an embedder or transport sees it, described once when the host is created: the MCP
 * listing, search, the discovery tools, the AI SDK adapter and the CLI all read these objects.
 */
export interface ToolInfo {
  /** Canonical name `<ToolSet>.<ToolName>`. */
  name: string;
  toolSet: string;
  /** What it does, with the rules across its parameters in words. */
  description: string;
  /** The JSON Schema of its arguments, as listed (`buildInputSchema`). */
  inputSchema: JsonSchema;
  /** Whether it only reads, may destroy data, can be repeated, reaches outside the host. */
  hints: BehaviorHints;
  /**
   * The HTTP endpoint the tool mirrors: method, path template and the input parameters that
   * fill its `{placeholders}`, in path order. Search reads the operation and object from it.
   */
  endpoint?: ToolEndpoint;
}

export interface ToolEndpoint {
  method: string;
  /** Path template, e.g. `/meta/bases/{baseId}/tables`. */
  path: string;
  /** Input parameter names of the path placeholders, in the order they appear in the path. */
  pathParams: string[];
}

export interface CallOptions {
  /** Whose credentials to use; default the config's defaultUserId, else `default`. */
  userId?: string;
  signal?: AbortSignal;
  /**
   * Sends a write at most once per user and key: the same key with the same arguments within
   * tools.idempotencyTtlSeconds answers the first outcome; with other arguments,
   * `idempotency_conflict`. Ignored by read-only tools.
   */
  idempotencyKey?: string;
  /**
   * The person's confirmation this call carries, where the embedder asks by round trips (as the
   * MCP server does on 2026-07-28 with its `requestState`): the write is sent at most once per
   * user and confirmation; the same confirmation again (a retry whose answer was lost) answers
   * the first outcome, `confirmation_in_progress` while it runs elsewhere, or
   * `confirmation_outcome_unknown` where its call stopped before its outcome was stored.
   * Ignored by read-only tools, and where `idempotencyKey` is given (the key guards the call).
   */
  confirmationId?: string;
  /**
   * How to ask the person before a write is sent, with tools.confirmWrites (the MCP server
   * passes form elicitation). Without it such a write answers `confirmation_required`.
   */
  confirm?: ConfirmWrite;
  /**
   * Hears of each wait the call goes through on its way to the upstream (pacing, a 429's
   * Retry-After, the backoff before retrying a 5xx or network error, a token refresh) as it
   * starts, and how long it held the call as it ends; the MCP server sends them on as progress
   * and log notifications of the request.
   */
  onWait?: CallWaitObserver;
  /**
   * applyPreview only: the tools (canonical names) the caller may send a preview of, as an MCP
   * request's narrowing leaves them, and what hides the rest; a preview of another tool is
   * refused (`unknown_tool`, saying `hiddenBy`) and stays unsent.
   */
  applyOnly?: { tools: ReadonlySet<string>; hiddenBy: string };
}

/** The in-process host: list tools and call them, no transport involved. */
export interface Host {
  /** The config the host runs with: what it was given, with every default filled in. */
  readonly config: ResolvedHostConfig;
  readonly plugins: readonly ToolPlugin[];
  /** Where plugins were looked for: the node_modules directories read (for messages when none is found). */
  readonly pluginSearch: {
    readonly directories: readonly string[];
    readonly discovered: boolean;
    /** Packages left out because they cannot be imported (with `unloadablePlugins: 'skip'`), and why. */
    readonly unloadable: readonly { readonly name: string; readonly reason: string }[];
  };
  /** Providers whose users sign in in their browser (OAuth); the HTTP server routes their start and callback pages. */
  readonly oauthProviders: readonly SignInProvider[];
  /** What the transports need beyond listing and calling, so that they never reach into the container. */
  readonly serving: ServingSupport;
  listTools(): ToolInfo[];
  getTool(name: string): ToolInfo | undefined;
  callTool(name: string, args: unknown, options?: CallOptions): Promise<ToolOutcome>;
  /**
   * Validates a call exactly as `callTool` does and answers the request it would send
   * (credentials redacted), sending nothing; `applyPreview` sends it.
   */
  previewToolCall(
    name: string,
    args: unknown,
    options?: Pick<CallOptions, 'userId'>,
  ): Promise<PreviewOutcome>;
  /** Sends a previewed request once (`preview_used` after, `preview_expired` too late); what a direct call answers. */
  applyPreview(previewId: string, options?: CallOptions): Promise<ToolOutcome>;
  /**
   * Loads what the first call needs (the HTTP client), which start-up leaves out so that the
   * tool list is served sooner. Transports call it once the tool list has been answered;
   * without it the first call loads it.
   */
  warm(): Promise<void>;
  /**
   * The host's counters (calls, errors by code, token refreshes, rate-limit waits) in
   * Prometheus text format, as `GET /metrics` serves them.
   */
  metrics(): Promise<string>;
  /** Stops taking calls, lets in-flight ones finish within `graceMs` (then cancels them), flushes token and write-record writes. */
  close(graceMs?: number): Promise<void>;
}
