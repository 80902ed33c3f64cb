import {
  type AuthProvider,
  type CallContext,
  REQUEST_BODY_PARAM,
  type SecretSource,
  ToolError,
  type ToolOutcome,
} from '@toolhost/core';
import { buildRequest, type HttpRequestSpec } from './build-request.js';
import {
  authorizationRequired,
  CallCredentials,
  credentialHeaderOf,
  credentialName,
} from './call-credentials.js';
import { CallPacing } from './call-pacing.js';
import { errorForResponse, retryAfterSeconds } from './classify-response.js';
import { ENGINE_DEFAULTS } from './engine-defaults.js';
import type { EngineObserver, EngineOptions } from './engine-options.js';
import type { HttpResponse, HttpSender } from './http-sender.js';
import { type PacerFactory, sleep } from './pacer.js';
import { quoted } from './quoted.js';
import { credentialForms, redact } from './redact.js';
import type { RegisteredTool, ToolRegistry } from './registry.js';
import { UpstreamSlots } from './upstream-slots.js';
import { parseRequestBody, refuseManyUnknown, validateArguments } from './validate-arguments.js';

export type { EngineObserver, EngineOptions, RateLimitWaitKind, UpstreamRetry } from './engine-options.js';

const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);

export interface EngineDependencies {
  authProviders: readonly AuthProvider[];
  secrets?: SecretSource;
  http: HttpSender;
  /** Makes each tool set's pacer (default: the in-process `Pacer`). */
  pacer?: PacerFactory;
}

/** A request ready to send: built and validated, without its credential; plain data (it may be stored). */
export interface PreparedRequest {
  /** The canonical tool name. */
  tool: string;
  /** The validated (and decoded) arguments, for pacing keys and retries. */
  args: Record<string, unknown>;
  /** The request as it will leave, minus the credential header. */
  http: HttpRequestSpec;
  /** The header the credential is sent in, when the tool needs one. */
  credentialHeader?: string;
}

/** What `prepare` answers: the request, or the call's outcome already (a schema, an error). */
export type PrepareResult =
  | { kind: 'request'; request: PreparedRequest }
  | { kind: 'outcome'; outcome: ToolOutcome };

export interface DispatchResult {
  outcome: ToolOutcome;
  /** False only where the request certainly never reached the upstream. */
  reachedUpstream: boolean;
}

function unknownTool(name: string): ToolOutcome {
  return {
    ok: false,
    error: { code: 'unknown_tool', message: `No tool named ${quoted(name)} is loaded.`, retryable: false },
  };
}

/**
 * The one engine: validates a call against its declaration, answers schema requests, builds
 * the HTTP request, attaches credentials, sends it, and turns whatever happens into a
 * ToolOutcome. It never throws.
 */
export class ToolEngine {
  private readonly credentials: CallCredentials;
  private readonly pacing: CallPacing;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly slots: UpstreamSlots;
  private readonly retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  private readonly maxRateLimitWait: number;
  private readonly onUnexpectedError?: (error: unknown, tool: string) => void;
  private readonly observer?: EngineObserver;
  private readonly settingHint?: (toolSet: string, setting: string) => string;

  constructor(
    readonly registry: ToolRegistry,
    private readonly deps: EngineDependencies,
    options: EngineOptions = {},
  ) {
    this.credentials = new CallCredentials(deps.authProviders, deps.secrets);
    this.timeoutMs = options.timeoutMs ?? ENGINE_DEFAULTS.timeoutMs;
    this.maxResponseBytes = options.maxResponseBytes ?? ENGINE_DEFAULTS.maxResponseBytes;
    this.slots = new UpstreamSlots(
      registry,
      options.maxConcurrentRequests ?? ENGINE_DEFAULTS.maxConcurrentRequests,
      options.maxConcurrentRequestsPerUpstream,
    );
    this.retry = { ...ENGINE_DEFAULTS.retry, ...options.retry };
    this.maxRateLimitWait = options.maxRateLimitWaitSeconds ?? ENGINE_DEFAULTS.maxRateLimitWaitSeconds;
    this.onUnexpectedError = options.onUnexpectedError;
    this.observer = options.observer;
    this.settingHint = options.settingHint;
    this.pacing = new CallPacing(deps.pacer, this.observer, () => this.warm());
  }

  /** Loads the sender's HTTP client ahead of the first call; never fails (a failure shows on that call). */
  async warm(): Promise<void> {
    await this.deps.http.warm?.().catch(() => {});
  }

  /** Releases the sender's pooled connections. */
  close(): void {
    this.deps.http.close?.();
  }

  async call(name: string, args: unknown, context: CallContext): Promise<ToolOutcome> {
    const prepared = this.prepare(name, args);
    if (prepared.kind === 'outcome') return prepared.outcome;
    return (await this.dispatch(prepared.request, context)).outcome;
  }

  /**
   * Everything a call does before it sends, and nothing after: the tool found, its arguments
   * validated, the request built. The request carries no credential (that is attached when it
   * is sent, so a token refreshed in between still works); the answer is data a host can
   * show, keep and send later with `dispatch`. A schema request or an invalid call is its
   * outcome already.
   */
  prepare(name: string, rawArgs: unknown): PrepareResult {
    const tool = this.registry.get(name);
    if (!tool) return { kind: 'outcome', outcome: unknownTool(name) };
    try {
      const decl = tool.declaration;
      const { mode, args, numberTexts } = validateArguments(decl, tool.inputSchema, rawArgs);
      if (decl.body?.kind === 'mode' && mode === 'get_request_schema') {
        return { kind: 'outcome', outcome: { ok: true, kind: 'schema', schema: decl.body.schema } };
      }
      const body =
        decl.body?.kind === 'mode' ? parseRequestBody(args.request_body, decl.body.schema) : undefined;
      if (body?.numberTexts) numberTexts.set(REQUEST_BODY_PARAM, body.numberTexts);
      const http = buildRequest(
        decl,
        {
          toolSet: tool.toolSet,
          baseUrl: tool.baseUrl,
          settings: tool.toolSetDefinition.settingValues,
          ...(this.settingHint ? { settingHint: this.settingHint } : {}),
        },
        args,
        body?.value,
        numberTexts,
      );
      const credentialHeader = credentialHeaderOf(decl.auth);
      return {
        kind: 'request',
        request: { tool: name, args, http, ...(credentialHeader ? { credentialHeader } : {}) },
      };
    } catch (e) {
      return { kind: 'outcome', outcome: this.failure(e, name, undefined) };
    }
  }

  /**
   * A call refused before its arguments are read whole (no such tool, or more arguments than its
   * tool has parameters), for a caller that reads them all before `prepare` (write safety's
   * copy and fingerprint): its outcome, or undefined. The unknown arguments are counted, never read.
   */
  refusedOutright(name: string, rawArgs: unknown): ToolOutcome | undefined {
    const tool = this.registry.get(name);
    if (!tool) return unknownTool(name);
    try {
      refuseManyUnknown(tool.declaration, tool.inputSchema, rawArgs);
      return undefined;
    } catch (e) {
      return this.failure(e, name, undefined);
    }
  }

  /**
   * Sends a prepared request (with the credential its tool needs) and answers its outcome,
   * and whether the request may have reached the upstream: false only where it certainly did
   * not (no credential, no slot, refused connection), which a host needs to know before it
   * lets the same write be sent again.
   */
  async dispatch(prepared: PreparedRequest, context: CallContext): Promise<DispatchResult> {
    const tool = this.registry.get(prepared.tool);
    const attempt = { reached: false };
    if (!tool) return { outcome: unknownTool(prepared.tool), reachedUpstream: false };
    try {
      return {
        outcome: await this.execute(tool, prepared, context, attempt),
        reachedUpstream: attempt.reached,
      };
    } catch (e) {
      return { outcome: this.failure(e, prepared.tool, context), reachedUpstream: attempt.reached };
    }
  }

  private failure(e: unknown, name: string, context: CallContext | undefined): ToolOutcome & { ok: false } {
    if (ToolError.isInstance(e)) return { ok: false, error: e.info };
    if (context?.signal?.aborted) {
      return {
        ok: false,
        error: { code: 'cancelled', message: 'The call was cancelled.', retryable: true },
      };
    }
    this.onUnexpectedError?.(e, name);
    return {
      ok: false,
      error: {
        code: 'internal_error',
        message: `The call of ${name} failed unexpectedly.`,
        retryable: false,
      },
    };
  }

  private async execute(
    tool: RegisteredTool,
    prepared: PreparedRequest,
    context: CallContext,
    attempt: { reached: boolean },
  ): Promise<ToolOutcome> {
    const decl = tool.declaration;
    const { args } = prepared;
    // A copy: the prepared request stays what was previewed, without the credential.
    const request: HttpRequestSpec = { ...prepared.http, headers: { ...prepared.http.headers } };
    const credential = await this.credentials.resolve(decl.auth, context);
    if (credential) request.headers[credential.header] = credential.value;

    const pacingKey = this.pacing.keyOf(tool, args, credential);
    let res = await this.sendWithRetries(tool, request, pacingKey, context, attempt);
    if (res.status === 401 && credential?.provider?.onUnauthorized && credential.request) {
      const renewed = await credential.provider.onUnauthorized(credential.request, credential.token ?? '');
      if (renewed?.kind === 'bearer') {
        request.headers[credential.header] = `Bearer ${renewed.token}`;
        credential.sent.push(renewed.token);
        res = await this.sendWithRetries(tool, request, pacingKey, context, attempt);
      } else if (renewed?.kind === 'authorization_required') {
        throw authorizationRequired(credential.provider.id, credential.request.scopes, renewed);
      }
    }
    // Upstreams that echo requests (in error bodies, debug endpoints) would hand the
    // credential to the agent; success bodies are checked as well as errors.
    if (credential) res = { ...res, body: redact(res.body, credentialForms(credential.sent)) };
    if (res.status >= 200 && res.status < 300)
      return { ok: true, kind: 'response', status: res.status, body: res.body };
    throw errorForResponse(res, credential ? credentialName(decl.auth, credential.provider) : undefined);
  }

  /**
   * Sends with the retries that are safe: network failures and 5xx only for idempotent tools
   * (or a request that never left), and one retry after a 429 when the wait is acceptable,
   * since a 429 means the request was not processed.
   */
  private async sendWithRetries(
    tool: RegisteredTool,
    request: HttpRequestSpec,
    pacingKey: string,
    context: CallContext,
    sent: { reached: boolean },
  ): Promise<HttpResponse> {
    const idempotent = tool.hints.idempotent;
    const rateLimit = tool.toolSetDefinition.traffic?.retryOnRateLimit;
    let rateLimitRetried = false;
    for (let attempt = 1; ; attempt += 1) {
      // When the request leaves (written to its connection), or is given up before that: the
      // pacer counts its departure from then, not from its turn (a slot or a connection to
      // wait for comes between).
      let departed!: () => void;
      const departure = new Promise<void>((resolve) => {
        departed = resolve;
      });
      await this.pacing.wait(tool, pacingKey, context, departure);
      let res: HttpResponse;
      try {
        res = await this.slots.run(
          tool.baseUrl,
          () =>
            this.observer?.upstreamResponse
              ? this.sendObserved(tool, request, context, sent, departed)
              : this.send(request, context, sent, departed),
          context.signal,
          this.timeoutMs,
        );
      } catch (e) {
        departed();
        const retry =
          ToolError.isInstance(e) &&
          e.code === 'upstream_unavailable' &&
          (idempotent || e.requestNotSent) &&
          attempt < this.retry.maxAttempts;
        if (!retry) throw e;
        await this.backoff(tool, context, attempt);
        continue;
      }
      departed();
      if (res.status === 429 && !rateLimitRetried) {
        const wait = retryAfterSeconds(res.headers) ?? rateLimit?.defaultWaitSeconds;
        const max = Math.min(this.maxRateLimitWait, rateLimit?.maxWaitSeconds ?? this.maxRateLimitWait);
        if (wait !== undefined && wait <= max) {
          rateLimitRetried = true;
          this.observer?.rateLimitWait?.(context, tool, 'retry_after', wait * 1000);
          const waited = context.onWait?.('retry_after', wait * 1000);
          try {
            await sleep(wait * 1000, context.signal);
          } finally {
            waited?.();
          }
          continue;
        }
      }
      if (RETRYABLE_STATUS.has(res.status) && idempotent && attempt < this.retry.maxAttempts) {
        await this.backoff(tool, context, attempt, res.status);
        continue;
      }
      return res;
    }
  }

  private async backoff(
    tool: RegisteredTool,
    context: CallContext,
    attempt: number,
    status?: number,
  ): Promise<void> {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const delayMs = Math.random() * cap;
    const retry = {
      attempt: attempt + 1,
      maxAttempts: this.retry.maxAttempts,
      ...(status !== undefined ? { status } : {}),
    };
    this.observer?.retry?.(context, tool, { ...retry, delayMs });
    const waited = context.onWait?.('retry', delayMs, retry);
    try {
      await sleep(delayMs, context.signal);
    } finally {
      waited?.();
    }
  }

  private async sendObserved(
    tool: RegisteredTool,
    request: HttpRequestSpec,
    context: CallContext,
    attempt: { reached: boolean },
    departed?: () => void,
  ): Promise<HttpResponse> {
    const started = performance.now();
    const res = await this.send(request, context, attempt, departed);
    this.observer?.upstreamResponse?.(context, tool, res.status, performance.now() - started);
    return res;
  }

  private async send(
    request: HttpRequestSpec,
    context: CallContext,
    attempt: { reached: boolean },
    departed?: () => void,
  ): Promise<HttpResponse> {
    let res: HttpResponse;
    try {
      res = await this.deps.http.send(request, {
        signal: context.signal,
        timeoutMs: this.timeoutMs,
        maxResponseBytes: this.maxResponseBytes,
        ...(departed ? { onDeparture: departed } : {}),
      });
    } catch (e) {
      // Once set it stays set: one attempt that may have arrived is enough.
      if (!(ToolError.isInstance(e) && e.requestNotSent)) attempt.reached = true;
      throw e;
    }
    attempt.reached = true;
    return res;
  }
}
