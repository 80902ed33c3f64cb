import type { ToolOutcome } from '@toolhost/core';
import type { BrowserSignIn } from '@toolhost/credentials';
import type { CallOptions, Host } from '../host-api.js';
import { askByRoundTrips, askMidCall } from './call-asking.js';
import { auditedOutcome, type CallAudit, type CallParams, shortName } from './call-audit.js';
import { type CatalogView, READONLY_HEADER, TOOLS_HEADER, TOOLSETS_HEADER } from './catalog-views.js';
import { clientNameOf } from './client-identity.js';
import { callDigest } from './confirmation-state.js';
import {
  APPLY_PREVIEW,
  CALL_TOOL,
  DESCRIBE_TOOLS,
  PREVIEW_TOOL_CALL,
  SEARCH_TOOLS,
} from './discovery-tools.js';
import { checkHostToolArguments, invalid } from './host-tool-arguments.js';
import { servesModernEra } from './protocol-eras.js';
import { renderOutcome } from './render-outcome.js';
import { fitResult } from './result-budget.js';
import {
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  UrlElicitationRequiredError,
} from './sdk.js';
import { type McpServingState, queryParamsOf, viewFor } from './serving-state.js';
import { waitNotificationsOf } from './wait-notifications.js';

/** Why a tool the host serves is not this request's to call. */
const HIDDEN_BY_NARROWING = `is left out by this request's ${TOOLSETS_HEADER} / ${TOOLS_HEADER} / ${READONLY_HEADER} headers`;

/** Where a direct `tools/call` carries its idempotency key. */
export const IDEMPOTENCY_META_KEY = 'toolhost/idempotencyKey';

/**
 * How a session learns that a sign-in it offered completed: told to `signIn`'s waiters here (one
 * process, or a flow completed anywhere and told over Redis), or, with replicas sharing
 * sessions, recorded in the shared store for whichever replica completes the flow.
 */
export type AwaitCompletion = (elicitationId: string, signIn: BrowserSignIn, userId: string) => Promise<void>;

/**
 * Where the client supports URL elicitation (MCP 2025-11-25), authorization is asked for with
 * the protocol's own mechanism: error -32042 carrying the URL, then a completion notice once
 * the user has authorized. Other clients get the structured authorization_required result.
 * The wait is arranged before the client has the URL, so that no completion can come first.
 */
async function offerUrlElicitation(
  server: Server,
  host: Host,
  authorization: { provider: string; url: string; id?: string; userId: string },
  message: string,
  awaitCompletion: AwaitCompletion,
): Promise<void> {
  // 2026-07-28 has no -32042: the structured result carries the URL there.
  if (servesModernEra(server) || !server.getClientCapabilities()?.elicitation?.url) return;
  const { provider: providerId, url, id: elicitationId, userId } = authorization;
  const provider = host.oauthProviders.find((p) => p.id === providerId);
  if (!elicitationId || !provider) return;
  await awaitCompletion(elicitationId, provider.signIn, userId);
  throw new UrlElicitationRequiredError([{ mode: 'url', message, url, elicitationId }], message);
}

/**
 * The notice told to this server's own client by the sign-in's waiters (dropped if it has gone),
 * which hold the server weakly: they live as long as their flow (10 min), closed sessions' too.
 */
export function completionToThisServer(server: Server): AwaitCompletion {
  const held = new WeakRef(server);
  const notice = async (id: string) => held.deref()?.createElicitationCompletionNotifier(id)();
  return async (id, signIn, userId) =>
    signIn.whenAuthorized(id, () => void notice(id).catch(() => {}), userId);
}

/**
 * `tools/call`: the discovery tools, and every tool by its MCP name, through one path (the
 * same validation, errors, authorization, logging and size budget for a direct call and for
 * `call_tool`).
 */
export class ToolCalls {
  constructor(
    private readonly server: Server,
    private readonly host: Host,
    private readonly mcpState: McpServingState,
    private readonly userId: string,
    private readonly callerId: string | undefined,
    private readonly awaitCompletion: AwaitCompletion,
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
        (options) =>
          this.host.applyPreview(args.preview_id as string, {
            ...options,
            applyOnly: { tools: view.exposed, hiddenBy: HIDDEN_BY_NARROWING },
          }),
        APPLY_PREVIEW,
        () => callDigest(APPLY_PREVIEW, args.preview_id, args.idempotency_key),
      );
    }
    const discovered = view.discovery && (await this.discover(view, name, args, ctx, audit));
    if (discovered) return discovered;
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

  /** The discovery tools (`mcp.catalog: dynamic`); undefined for any other name. */
  private async discover(
    view: CatalogView,
    name: string,
    args: Record<string, unknown>,
    ctx: ServerContext,
    audit: CallAudit,
  ): Promise<CallToolResult | InputRequiredResult | undefined> {
    const discovery = view.discovery;
    if (!discovery) return undefined;
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
    return undefined;
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
    const asking = servesModernEra(this.server) ? askByRoundTrips : askMidCall;
    const answered = await asking({
      server: this.server,
      ctx,
      confirmWrites: this.host.config.tools?.confirmWrites,
      confirmations: this.mcpState.confirmations,
      userId: this.userId,
      options,
      audit,
      run,
      tool,
      digest,
    });
    return 'question' in answered ? answered.question : this.rendered(answered.outcome, tool);
  }

  private async rendered(outcome: ToolOutcome, tool: string): Promise<CallToolResult> {
    if (!outcome.ok && outcome.error.code === 'authorization_required' && outcome.error.authorization?.url) {
      await offerUrlElicitation(
        this.server,
        this.host,
        { ...outcome.error.authorization, url: outcome.error.authorization.url, userId: this.userId },
        outcome.error.message,
        this.awaitCompletion,
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
        ? `The tool ${shortName(name)} ${HIDDEN_BY_NARROWING}.`
        : this.host.serving.explainUnknownTool(shortName(name), this.mcpState.exposed, 'mcp');
    return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  }
}
