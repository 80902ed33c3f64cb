import { randomBytes } from 'node:crypto';
import type { ToolErrorInfo, ToolOutcome } from '@toolhost/core';
import type { CallOptions, Host } from '../host-api.js';
import { MemoryRecords } from '../writes/expiring-records.js';
import type { ConfirmWrite } from '../writes/write-safety.js';
import { withCallerTrace } from './caller-trace.js';
import {
  type CatalogView,
  CatalogViews,
  type Narrowing,
  narrowingOf,
  READONLY_HEADER,
  TOOLS_HEADER,
  TOOLSETS_HEADER,
} from './catalog-views.js';
import { clientCapabilitiesOf, clientNameOf } from './client-identity.js';
import {
  asksBeforeAnswering,
  asksWithInputRequired,
  CONFIRM_INPUT,
  confirmationForm,
  elicitationConfirm,
  SIGNIN_INPUT,
} from './confirm-elicitation.js';
import { type ConfirmationPayload, ConfirmationStates, callDigest } from './confirmation-state.js';
import {
  APPLY_PREVIEW,
  CALL_TOOL,
  DESCRIBE_TOOLS,
  PREVIEW_TOOL_CALL,
  SEARCH_TOOLS,
} from './discovery-tools.js';
import { checkHostToolArguments } from './host-tool-arguments.js';
import { servesModernEra } from './protocol-eras.js';
import { renderOutcome, STATUS_META_KEY } from './render-outcome.js';
import { fitResult, type QueryParamName } from './result-budget.js';
import { ResultStore, type ResultStoreOptions } from './result-store.js';
import {
  type CacheableMethod,
  type CacheHint,
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  instructionsAtInitialize,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type ServerContext,
  UrlElicitationRequiredError,
} from './sdk.js';
import { ToolNameMap } from './tool-names.js';
import { waitNotificationsOf } from './wait-notifications.js';

/** Where a direct `tools/call` carries its idempotency key. */
export const IDEMPOTENCY_META_KEY = 'toolhost/idempotencyKey';

function invalid(parameter: string, message: string): ToolOutcome {
  return { ok: false, error: { code: 'invalid_argument', message, retryable: false, parameter } };
}

export interface McpServerOptions {
  name?: string;
  version?: string;
  /** The user calls on this server are made for (per HTTP session). */
  userId?: string;
  /**
   * Sends the completion notice of a URL elicitation. By default this server sends it; with
   * replicas it goes to whichever replica holds the client's event stream.
   */
  notifyCompletion?: (elicitationId: string) => void;
  /** What the session's initialize request narrowed the catalog to: its instructions fit that view. */
  narrowing?: Narrowing;
  /**
   * Serves the requests of many users, each standing alone (MCP 2026-07-28 over HTTP, one server
   * reused across requests): a request's user is the one the endpoint authenticated for it
   * (`ctx.http.authInfo`), not `userId`.
   */
  userPerRequest?: boolean;
  /** Protocol revisions the server accepts besides the SDK's defaults (2026-07-28 for a revision server). */
  supportedProtocolVersions?: string[];
}

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
    queryParams: new Map<string, readonly QueryParamName[]>(),
    /** The canonical names of the exposed tools, for explaining a name that is not one of them. */
    exposed: whole.exposed,
    warmed: false,
    cacheHints: cacheHintsFor(mcp.resultTtlSeconds),
    confirmations: confirmationStatesOf(host),
  };
}

/**
 * Where 2026-07-28 confirmations are signed and spent: with replicas, a key every one derives
 * from TOOLHOST_TOKEN_KEY and the records they share (Redis), so any replica takes the answer
 * to a question another asked; alone, a key of this process and its memory.
 */
function confirmationStatesOf(host: Host): ConfirmationStates {
  const shared = host.serving.sharedStore;
  return shared
    ? new ConfirmationStates(shared.signingKey('mcp-request-state'), shared.writeRecords)
    : new ConfirmationStates(randomBytes(32), new MemoryRecords());
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
  const results = host.serving.sharedStore?.results;
  return results ? { shared: results, onShareFailed: (e) => results.shareFailed(e) } : {};
}

/** The catalog view a request sees: narrowed by its HTTP headers, if it sent any, and fit to its client. */
function viewFor(mcpState: McpServingState, ctx: ServerContext, server: Server): CatalogView {
  return mcpState.views.view(narrowingOf(ctx.http?.req?.headers), clientNameOf(server, ctx));
}

/**
 * Where the client supports URL elicitation (MCP 2025-11-25), authorization is asked for with
 * the protocol's own mechanism: error -32042 carrying the URL, then a completion notice once
 * the user has authorized. Other clients get the structured authorization_required result.
 */
function offerUrlElicitation(
  server: Server,
  host: Host,
  authorization: { provider: string; url: string; id?: string },
  message: string,
  notifyCompletion: (elicitationId: string) => void,
): void {
  // 2026-07-28 has no -32042: the structured result carries the URL there.
  if (servesModernEra(server) || !server.getClientCapabilities()?.elicitation?.url) return;
  const { provider: providerId, url, id: elicitationId } = authorization;
  const provider = host.oauthProviders.find((p) => p.id === providerId);
  if (!elicitationId || !provider) return;
  provider.signIn.whenAuthorized(elicitationId, () => notifyCompletion(elicitationId));
  throw new UrlElicitationRequiredError([{ mode: 'url', message, url, elicitationId }], message);
}

/** Tells this server's client that the user completed a URL elicitation (dropped if it has gone). */
export async function sendCompletionNotice(server: Server, elicitationId: string): Promise<void> {
  await server
    .createElicitationCompletionNotifier(elicitationId)()
    .catch(() => {});
}

/**
 * A low-level MCP server over the host. Tools are registered with their raw JSON Schemas
 * through the request handlers: the high-level `tool()` helper expects zod and drops plain
 * JSON Schema.
 */
export function createMcpServer(
  host: Host,
  mcpState: McpServingState,
  options: McpServerOptions = {},
): Server {
  const server = new Server(
    { name: options.name ?? 'toolhost', version: options.version ?? '0.0.0' },
    {
      // `logging`: a call's waits and retries go to the client as log notifications of the
      // request, at or above the level it asked for (`logging/setLevel` on a session, the
      // per-request `_meta` level on 2026-07-28, where none is sent without one).
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, logging: {} },
      instructions: mcpState.views.view(options.narrowing).instructions,
      cacheHints: mcpState.cacheHints,
      // Checked before any handler runs: a state that fails is -32602, and never reaches one.
      requestState: { verify: (state, ctx) => mcpState.confirmations.codec.verify(state, ctx) },
      ...(options.supportedProtocolVersions
        ? { supportedProtocolVersions: options.supportedProtocolVersions }
        : {}),
    },
  );
  const userOf = options.userPerRequest
    ? requestUser
    : (() => {
        const userId = options.userId ?? host.config.defaultUserId;
        return () => userId;
      })();
  instructionsAtInitialize(
    server,
    (client, ctx) =>
      mcpState.views.view(narrowingOf(ctx.http?.req?.headers) ?? options.narrowing, client).instructions,
  );
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const view = viewFor(mcpState, ctx, server);
    // Once the list is answered (the client's first step), load what calls need. A timer, not
    // setImmediate: the stdio transport writes this turn's answers in a setImmediate queued
    // after this one, and loading first (synchronous on Node 22) held the answer back.
    if (!mcpState.warmed) {
      mcpState.warmed = true;
      setTimeout(() => {
        void view.discovery?.warm();
        void host.warm();
      }, 0);
    }
    return { tools: view.listed };
  });
  const notifyCompletion =
    options.notifyCompletion ?? ((id: string) => void sendCompletionNotice(server, id));
  // One ToolCalls for a server of one user; one per call (a few fields) where each request names its own.
  const calls = options.userPerRequest
    ? undefined
    : new ToolCalls(server, host, mcpState, userOf(), options.userId, notifyCompletion);
  server.setRequestHandler('tools/call', (request, ctx) => {
    const answering =
      calls ?? new ToolCalls(server, host, mcpState, userOf(ctx), userOf(ctx), notifyCompletion);
    return withCallerTrace(ctx.mcpReq._meta ?? request.params._meta, () =>
      answering.answer(request.params, ctx),
    );
  });
  serveResults(server, mcpState, userOf);
  return server;
}

/** The user the endpoint authenticated a request for (access tokens, or the default user). */
function requestUser(ctx?: ServerContext): string {
  return ctx?.http?.authInfo?.clientId ?? '';
}

/** What the audit line of a call needs beyond its answer. */
interface CallAudit {
  /** The plugin tool run (for `call_tool`, the one it names). */
  tool?: string;
  /** The tool a `preview_tool_call` previewed. */
  target?: string;
  /** The person declined the write. */
  declined?: boolean;
  /** The error of a result that carries it as text only (search_tools: see its output schema). */
  error?: ToolErrorInfo;
}

/** A result's outcome for the audit log: `ok` or its error's code, and the upstream status. */
function auditedOutcome(
  result: CallToolResult | InputRequiredResult,
  audit: CallAudit,
): { outcome: string; status?: number } {
  // 2026-07-28: the call ended to ask the client first (a confirmation, a sign-in).
  if (!Array.isArray((result as { content?: unknown }).content)) return { outcome: 'input_required' };
  const called = result as CallToolResult;
  const status = called._meta?.[STATUS_META_KEY];
  if (!called.isError) return { outcome: 'ok', ...(typeof status === 'number' ? { status } : {}) };
  const error =
    audit.error ??
    (called.structuredContent as { error?: { code?: unknown; status?: unknown } } | undefined)?.error;
  return {
    outcome: typeof error?.code === 'string' ? error.code : 'error',
    ...(typeof error?.status === 'number' ? { status: error.status } : {}),
  };
}

type CallParams = { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };

/** A name as a log line or message may show it: the caller's text, of any length. */
function shortName(name: unknown): string {
  const text = typeof name === 'string' ? name : (JSON.stringify(name) ?? String(name));
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/**
 * The person's confirmation, noting a decline for the audit log: the caller's outcome is
 * `cancelled`, as for a cancelled call, and the audit log tells the two apart.
 */
function noteDeclined(confirm: ConfirmWrite, audit: CallAudit): ConfirmWrite {
  return async (write, signal) => {
    const agreed = await confirm(write, signal);
    if (!agreed) audit.declined = true;
    return agreed;
  };
}

/**
 * `tools/call`: the discovery tools, and every tool by its MCP name, through one path (the
 * same validation, errors, authorization, logging and size budget for a direct call and for
 * `call_tool`).
 */
class ToolCalls {
  constructor(
    private readonly server: Server,
    private readonly host: Host,
    private readonly mcpState: McpServingState,
    private readonly userId: string,
    private readonly callerId: string | undefined,
    private readonly notifyCompletion: (elicitationId: string) => void,
  ) {}

  /**
   * Answers one call. A failure that is not the protocol's own (an unknown tool, an
   * elicitation) is a bug: logged, and answered `internal_error` without its details.
   */
  async answer(params: CallParams, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const audit: CallAudit = {};
    try {
      const result = await this.dispatch(params, ctx, audit);
      this.audited(params, ctx, audit, result);
      return result;
    } catch (e) {
      if (e instanceof ProtocolError) {
        const code = e instanceof UrlElicitationRequiredError ? 'authorization_required' : 'unknown_tool';
        this.audited(params, ctx, audit, undefined, code);
        throw e;
      }
      this.host.serving.logger?.error(
        { tool: shortName(params.name), err: e instanceof Error ? (e.stack ?? e.message) : String(e) },
        'tool call failed',
      );
      const { structuredContent, ...result } = renderOutcome({
        ok: false,
        error: {
          code: 'internal_error',
          message: 'The host failed to answer this call; the details are in its log.',
          retryable: false,
        },
      });
      this.audited(params, ctx, audit, undefined, 'internal_error');
      // search_tools declares an output schema, which an error's structured content does not fit.
      return params.name === SEARCH_TOOLS ? result : { ...result, structuredContent };
    }
  }

  /** The call's line in the operator's audit log, if there is one. */
  private audited(
    params: CallParams,
    ctx: ServerContext,
    audit: CallAudit,
    result?: CallToolResult | InputRequiredResult,
    code?: string,
  ): void {
    const log = this.mcpState.audit;
    if (!log) return;
    const answered = result ? auditedOutcome(result, audit) : { outcome: code ?? 'internal_error' };
    const client = clientNameOf(this.server, ctx);
    log.record({
      event: 'tool_call',
      user: this.userId,
      ...(client ? { client } : {}),
      tool: audit.tool ?? shortName(params.name),
      ...(audit.target ? { target: audit.target } : {}),
      ...answered,
      ...(audit.declined ? { outcome: 'confirmation_declined' } : {}),
      ...(log.includeArguments ? { arguments: params.arguments ?? {} } : {}),
    });
  }

  private async dispatch(
    params: CallParams,
    ctx: ServerContext,
    audit: CallAudit,
  ): Promise<CallToolResult | InputRequiredResult> {
    const { name, arguments: args = {} } = params;
    const view = viewFor(this.mcpState, ctx, this.server);
    const own = view.hostTools.get(name);
    if (own) {
      const refused = checkHostToolArguments(own, args);
      if (refused && !refused.ok) {
        const { structuredContent, ...result } = renderOutcome(refused);
        if (name !== SEARCH_TOOLS) return { ...result, structuredContent };
        audit.error = refused.error;
        return result;
      }
    }
    if (view.previews && name === PREVIEW_TOOL_CALL) return this.preview(args, audit, view);
    if (view.previews && name === APPLY_PREVIEW) {
      if (typeof args.preview_id !== 'string' || args.preview_id === '')
        return renderOutcome(
          invalid('preview_id', "Parameter 'preview_id' is required: the id preview_tool_call answered."),
        );
      return this.answerKeyed(
        args.idempotency_key,
        'idempotency_key',
        ctx,
        audit,
        (options) => this.host.applyPreview(args.preview_id as string, options),
        APPLY_PREVIEW,
        () => callDigest(APPLY_PREVIEW, args.preview_id, args.idempotency_key),
      );
    }
    const discovery = view.discovery;
    if (discovery) {
      if (name === SEARCH_TOOLS) {
        const answer = await discovery.search(args);
        if (!answer.ok) audit.error = answer.error;
        const fitted = this.withinBudget(answer.result, undefined, undefined, name);
        if (fitted.content.length === 1) return fitted;
        // A summary: its structured content does not fit the output schema (a list of tools).
        const { structuredContent: _unfit, ...summary } = fitted;
        return summary;
      }
      if (name === DESCRIBE_TOOLS) {
        const answer = discovery.describe(args);
        return this.withinBudget(answer.result, answer.ok ? answer.value : undefined, undefined, name);
      }
      if (name === CALL_TOOL) {
        const canonical = this.resolve(args.name, view);
        if (!canonical) throw this.unknownTool(args.name, view);
        audit.tool = canonical;
        return this.call(canonical, args.arguments, ctx, audit, args.idempotency_key, 'idempotency_key');
      }
    }
    const canonical = this.mcpState.names.canonicalName(name);
    if (!canonical || !view.exposed.has(canonical)) throw this.unknownTool(name, view);
    audit.tool = canonical;
    return this.call(
      canonical,
      args,
      ctx,
      audit,
      params._meta?.[IDEMPOTENCY_META_KEY],
      `_meta.${IDEMPOTENCY_META_KEY}`,
    );
  }

  /** A tool named in either spelling (`Set.Tool` or `Set_Tool`), if exposed (in the request's view). */
  private resolve(name: unknown, view: CatalogView): string | undefined {
    if (typeof name !== 'string') return undefined;
    const canonical = this.mcpState.names.canonicalName(name) ?? (this.host.getTool(name) ? name : undefined);
    return canonical !== undefined && view.exposed.has(canonical) ? canonical : undefined;
  }

  private async preview(
    args: Record<string, unknown>,
    audit: CallAudit,
    view: CatalogView,
  ): Promise<CallToolResult> {
    const canonical = this.resolve(args.name, view);
    if (!canonical) throw this.unknownTool(args.name, view);
    audit.target = canonical;
    const outcome = await this.host.previewToolCall(canonical, args.arguments ?? {}, {
      userId: this.callerId,
    });
    if (outcome.ok && outcome.kind === 'preview') {
      const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(outcome.preview) }] };
      return this.withinBudget(result, outcome.preview, undefined, PREVIEW_TOOL_CALL);
    }
    return this.rendered(outcome, canonical);
  }

  private call(
    canonical: string,
    args: unknown,
    ctx: ServerContext,
    audit: CallAudit,
    key: unknown,
    keyParameter: string,
  ): Promise<CallToolResult | InputRequiredResult> {
    return this.answerKeyed(
      key,
      keyParameter,
      ctx,
      audit,
      (options) => this.host.callTool(canonical, args ?? {}, options),
      canonical,
      () => callDigest(canonical, args, key),
    );
  }

  /** Runs a call with the caller's idempotency key (checked) and the way to ask the person. */
  private async answerKeyed(
    key: unknown,
    keyParameter: string,
    ctx: ServerContext,
    audit: CallAudit,
    run: (options: CallOptions) => Promise<ToolOutcome>,
    tool: string,
    digest: () => string,
  ): Promise<CallToolResult | InputRequiredResult> {
    if (key !== undefined && (typeof key !== 'string' || key === '' || key.length > 255))
      return renderOutcome(
        invalid(keyParameter, `'${keyParameter}' must be a string of 1 to 255 characters.`),
      );
    const options: CallOptions = {
      userId: this.callerId,
      signal: ctx.mcpReq.signal,
      onWait: waitNotificationsOf(ctx),
      ...(key !== undefined ? { idempotencyKey: key as string } : {}),
    };
    if (servesModernEra(this.server)) return this.answerByRoundTrips(ctx, options, audit, run, tool, digest);
    if (asksBeforeAnswering(this.server, this.host.config.tools?.confirmWrites))
      options.confirm = noteDeclined(elicitationConfirm(this.server, ctx.mcpReq.id), audit);
    return this.rendered(await run(options), tool);
  }

  /**
   * A call on MCP 2026-07-28, where the server cannot ask its client mid-call. What it must ask
   * first (the person's confirmation of a write, a sign-in to the upstream) ends the request,
   * with nothing sent upstream, in `input_required`: the question and a signed `requestState`.
   * The client asks, then sends the call again with the answer and the state, which must be
   * this user's, for this very call, unexpired and unused.
   */
  private async answerByRoundTrips(
    ctx: ServerContext,
    options: CallOptions,
    audit: CallAudit,
    run: (options: CallOptions) => Promise<ToolOutcome>,
    tool: string,
    /** Computed only where a state is redeemed or minted: most calls need none. */
    digest: () => string,
  ): Promise<CallToolResult | InputRequiredResult> {
    const states = this.mcpState.confirmations;
    const state = ctx.mcpReq.requestState<ConfirmationPayload>();
    if (state !== undefined) {
      const refused = await states.redeem(state, this.userId, tool, digest());
      if (refused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused);
    }
    let asked: Parameters<ConfirmWrite>[0] | undefined;
    if (state?.k === 'confirm') {
      const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_INPUT);
      const agreed = answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.send === true;
      options.confirm = noteDeclined(async () => agreed, audit);
    } else if (asksWithInputRequired(this.server, ctx, this.host.config.tools?.confirmWrites)) {
      options.confirm = async (write) => {
        asked = write;
        return false;
      };
    }
    const outcome = await run(options);
    if (asked) {
      return inputRequired({
        inputRequests: {
          [CONFIRM_INPUT]: inputRequired.elicit({ mode: 'form', ...confirmationForm(asked) }),
        },
        requestState: await states.mint(ctx, 'confirm', this.userId, tool, digest()),
      });
    }
    const url =
      !outcome.ok && outcome.error.code === 'authorization_required' && outcome.error.authorization?.url;
    // A person who would not sign in is not asked again and again: the structured error it is.
    const signin = state?.k === 'signin' ? inputResponse(ctx.mcpReq.inputResponses, SIGNIN_INPUT) : undefined;
    const declined = signin !== undefined && (signin.kind !== 'elicit' || signin.action !== 'accept');
    if (url && !outcome.ok && !declined && clientCapabilitiesOf(this.server, ctx)?.elicitation?.url) {
      return inputRequired({
        inputRequests: { [SIGNIN_INPUT]: inputRequired.elicitUrl({ message: outcome.error.message, url }) },
        requestState: await states.mint(ctx, 'signin', this.userId, tool, digest()),
      });
    }
    return this.rendered(outcome, tool);
  }

  private rendered(outcome: ToolOutcome, tool: string): CallToolResult {
    if (!outcome.ok && outcome.error.code === 'authorization_required' && outcome.error.authorization?.url) {
      offerUrlElicitation(
        this.server,
        this.host,
        { ...outcome.error.authorization, url: outcome.error.authorization.url },
        outcome.error.message,
        this.notifyCompletion,
      );
    }
    // A request schema cut to a summary is of no use to build a body from: it is sent whole
    // (compacted by renderOutcome; the README states its largest size).
    if (outcome.ok && outcome.kind === 'schema') return renderOutcome(outcome);
    const value = outcome.ok ? outcome.body : outcome.error;
    const status = outcome.ok && outcome.kind === 'response' ? outcome.status : undefined;
    return this.withinBudget(renderOutcome(outcome), value, status, tool);
  }

  private withinBudget(result: CallToolResult, value: unknown, status: number | undefined, tool: string) {
    return fitResult(result, value, status, {
      maxBytes: this.mcpState.maxResultBytes,
      store: this.mcpState.results,
      userId: this.userId,
      tool,
      mcpName: this.mcpState.names.mcpName(tool),
      queryParams: queryParamsOf(this.host, this.mcpState, tool),
    });
  }

  /** The same words as the embedding API and the CLI: the right spelling, the key that hides the tool, or a close name. */
  private unknownTool(name: unknown, view: CatalogView): ProtocolError {
    const canonical = typeof name === 'string' ? this.mcpState.names.canonicalName(name) : undefined;
    const message =
      canonical !== undefined && this.mcpState.exposed.has(canonical) && !view.exposed.has(canonical)
        ? `The tool ${shortName(name)} is left out by this request's ${TOOLSETS_HEADER} / ${TOOLS_HEADER} / ${READONLY_HEADER} headers.`
        : this.host.serving.explainUnknownTool(shortName(name), this.mcpState.exposed, 'mcp');
    return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  }
}

/** Results over the size budget, each readable only by the user whose call produced it. */
function serveResults(
  server: Server,
  mcpState: McpServingState,
  userOf: (ctx: ServerContext) => string,
): void {
  server.setRequestHandler('resources/list', async (_request, ctx) => ({
    resources: (await mcpState.results.listAll(userOf(ctx))).map((r) => ({
      uri: r.uri,
      name: `${mcpState.names.mcpName(r.tool)} result`,
      mimeType: 'application/json',
      size: r.bytes,
    })),
  }));
  // No templates: a stored result is read by the URI its summary gave.
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const stored = await mcpState.results.read(request.params.uri, userOf(ctx));
    if (!stored) {
      // -32602 with the URI in `data`, as 2026-07-28 asks (SEP-2164), on every era.
      throw new ResourceNotFoundError(
        request.params.uri,
        `Resource not found (results expire after ${mcpState.results.ttlSeconds} s): ${request.params.uri}`,
      );
    }
    return { contents: [{ uri: stored.uri, mimeType: 'application/json', text: stored.text }] };
  });
}

/** The tool's query parameters by tool and API name, for the next-page hint of a summary. */
function queryParamsOf(host: Host, mcpState: McpServingState, tool: string): readonly QueryParamName[] {
  let params = mcpState.queryParams.get(tool);
  if (!params) {
    params = host.serving.queryParameters(tool);
    mcpState.queryParams.set(tool, params);
  }
  return params;
}
