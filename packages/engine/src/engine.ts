import { createHash } from 'node:crypto';
import {
  type AuthProvider,
  type AuthRequirement,
  type CallContext,
  type CredentialRequest,
  type SecretSource,
  ToolError,
  type ToolOutcome,
} from '@toolhost/core';
import { buildRequest, type HttpRequestSpec } from './build-request.js';
import { errorForResponse, retryAfterSeconds } from './classify-response.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { ENGINE_DEFAULTS } from './engine-defaults.js';
import type { HttpResponse, HttpSender } from './http-sender.js';
import { Pacer, type PacerFactory, type RequestPacer, sleep } from './pacer.js';
import { credentialForms, redact } from './redact.js';
import type { RegisteredTool, ToolRegistry } from './registry.js';
import { parseRequestBody, validateArguments } from './validate-arguments.js';

export interface EngineOptions {
  /**
   * Per upstream request, in milliseconds (default 30 s): the whole exchange, from sending to
   * the last byte of the answer. A request also waits at most this long for a slot.
   */
  timeoutMs?: number;
  /** Largest upstream response accepted, in bytes (default 10 MiB). */
  maxResponseBytes?: number;
  /** Upstream requests in flight at once across all tools (default 64, the sockets kept per upstream); the rest queue. */
  maxConcurrentRequests?: number;
  /**
   * Upstream requests in flight at once to one upstream (scheme, host and port), so that one
   * slow upstream cannot take every slot from the others. Default: 32 where the tools reach
   * more than one upstream; where they all reach one, `maxConcurrentRequests` (there is no
   * other upstream to keep slots for).
   */
  maxConcurrentRequestsPerUpstream?: number;
  /**
   * Retries of network errors and 5xx, only where safe: idempotent tools, or a request that
   * never left. Backoff is exponential with full jitter.
   */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Longest wait honoured for one retry after a 429 (default 30 s); longer waits return the error. */
  maxRateLimitWaitSeconds?: number;
  /** Told about failures that are bugs (returned to callers only as `internal_error`), for logging. */
  onUnexpectedError?: (error: unknown, tool: string) => void;
  /** Told what happens inside a call (upstream answers, rate-limit waits), for traces and metrics. */
  observer?: EngineObserver;
  /** What an operator does to give a tool set a setting it lacks (default: the config key). */
  settingHint?: (toolSet: string, setting: string) => string;
}

/**
 * What the engine reports about a call while it runs. Each hook receives the call's own
 * `CallContext` object, so a host can tie the reports to the call it started (a span, a log
 * line) without the engine knowing about any telemetry library.
 */
export interface EngineObserver {
  /** An upstream answered one attempt (every attempt of a retried call is reported). */
  upstreamResponse?(context: CallContext, tool: RegisteredTool, status: number, durationMs: number): void;
  /**
   * A request waited before leaving: for its pacing slot (`pacing`), or for the wait an
   * upstream asked for with a 429 (`retry_after`).
   */
  rateLimitWait?(context: CallContext, tool: RegisteredTool, kind: RateLimitWaitKind, waitMs: number): void;
  /**
   * An attempt failed in a way that is retried (a network error, a 5xx): attempt `attempt`
   * leaves after `delayMs` of backoff. `status` is the upstream's answer, absent when none came.
   */
  retry?(context: CallContext, tool: RegisteredTool, retry: UpstreamRetry): void;
}

export type RateLimitWaitKind = 'pacing' | 'retry_after';

/** A retry about to be made, as `EngineObserver.retry` is told of it. */
export interface UpstreamRetry {
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  delayMs: number;
  /** The failed attempt's status; absent when it got no answer. */
  status?: number;
}

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
    error: { code: 'unknown_tool', message: `No tool named '${name}' is loaded.`, retryable: false },
  };
}

/** The header a tool's credential travels in: every auth kind sends `authorization`. */
function credentialHeaderOf(auth: AuthRequirement): string | undefined {
  return auth.kind === 'none' ? undefined : 'authorization';
}

type Credential = {
  header: string;
  value: string;
  /** What was sent, in the forms an echoing upstream could return it (never returned to callers). */
  sent: string[];
  /** The provider's raw token, told back to it when the upstream rejects it. */
  token?: string;
  provider?: AuthProvider;
  request?: CredentialRequest;
  /** The vendor-side connection it acts for: the pacing bucket of `per: 'connection'` pacing. */
  connection: string;
};

/**
 * The one engine: validates a call against its declaration, answers schema requests, builds
 * the HTTP request, attaches credentials, sends it, and turns whatever happens into a
 * ToolOutcome. It never throws.
 */
export class ToolEngine {
  private readonly providers: Map<string, AuthProvider>;
  private readonly pacers = new Map<string, RequestPacer>();
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly limit: ConcurrencyLimit;
  /** Slots per upstream origin, and the origin of each base URL (parsed once). */
  private readonly perUpstream = new Map<string, ConcurrencyLimit>();
  private readonly origins = new Map<string, string>();
  /** Slots per upstream, as set; otherwise decided from the registry at the first send. */
  private perUpstreamLimit: number | undefined;
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
    this.providers = new Map(deps.authProviders.map((p) => [p.id, p]));
    this.timeoutMs = options.timeoutMs ?? ENGINE_DEFAULTS.timeoutMs;
    this.maxResponseBytes = options.maxResponseBytes ?? ENGINE_DEFAULTS.maxResponseBytes;
    this.limit = new ConcurrencyLimit(options.maxConcurrentRequests ?? ENGINE_DEFAULTS.maxConcurrentRequests);
    this.perUpstreamLimit = options.maxConcurrentRequestsPerUpstream;
    this.retry = { ...ENGINE_DEFAULTS.retry, ...options.retry };
    this.maxRateLimitWait = options.maxRateLimitWaitSeconds ?? ENGINE_DEFAULTS.maxRateLimitWaitSeconds;
    this.onUnexpectedError = options.onUnexpectedError;
    this.observer = options.observer;
    this.settingHint = options.settingHint;
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
      const { mode, args } = validateArguments(decl, tool.inputSchema, rawArgs);
      if (decl.body?.kind === 'mode' && mode === 'get_request_schema') {
        return { kind: 'outcome', outcome: { ok: true, kind: 'schema', schema: decl.body.schema } };
      }
      const body =
        decl.body?.kind === 'mode' ? parseRequestBody(args.request_body, decl.body.schema) : undefined;
      const http = buildRequest(
        decl,
        {
          toolSet: tool.toolSet,
          baseUrl: tool.baseUrl,
          settings: tool.toolSetDefinition.settingValues,
          ...(this.settingHint ? { settingHint: this.settingHint } : {}),
        },
        args,
        body,
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
    const credential = await this.credentials(decl.auth, context);
    if (credential) request.headers[credential.header] = credential.value;

    const pacingKey = this.pacingKey(tool, args, credential);
    let res = await this.sendWithRetries(tool, request, pacingKey, context, attempt);
    if (res.status === 401 && credential?.provider?.onUnauthorized && credential.request) {
      const renewed = await credential.provider.onUnauthorized(credential.request, credential.token ?? '');
      if (renewed?.kind === 'bearer') {
        request.headers[credential.header] = `Bearer ${renewed.token}`;
        credential.sent.push(renewed.token);
        res = await this.sendWithRetries(tool, request, pacingKey, context, attempt);
      } else if (renewed?.kind === 'authorization_required') {
        throw this.authorizationRequired(credential.provider.id, credential.request.scopes, renewed);
      }
    }
    // Upstreams that echo requests (in error bodies, debug endpoints) would hand the
    // credential to the agent; success bodies are checked as well as errors.
    if (credential) res = { ...res, body: redact(res.body, credentialForms(credential.sent)) };
    if (res.status >= 200 && res.status < 300)
      return { ok: true, kind: 'response', status: res.status, body: res.body };
    throw errorForResponse(res, credential ? credentialName(decl.auth) : undefined);
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
      await this.pace(tool, pacingKey, context);
      let res: HttpResponse;
      try {
        res = await this.sendInSlot(tool, request, context, sent);
      } catch (e) {
        const retry =
          ToolError.isInstance(e) &&
          e.code === 'upstream_unavailable' &&
          (idempotent || e.requestNotSent) &&
          attempt < this.retry.maxAttempts;
        if (!retry) throw e;
        await this.backoff(tool, context, attempt);
        continue;
      }
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

  /**
   * Sends once a slot of the tool's upstream and then one of the host's is free, waiting at
   * most `timeoutMs` for both. Waiting for the upstream's own slot first means calls queued
   * behind a slow upstream hold none of the slots other upstreams need.
   */
  private sendInSlot(
    tool: RegisteredTool,
    request: HttpRequestSpec,
    context: CallContext,
    attempt: { reached: boolean },
  ) {
    const origin = this.originOf(tool.baseUrl);
    let upstream = this.perUpstream.get(origin);
    if (!upstream) {
      this.perUpstreamLimit ??= this.defaultPerUpstreamLimit();
      upstream = new ConcurrencyLimit(this.perUpstreamLimit);
      this.perUpstream.set(origin, upstream);
    }
    const deadline = Date.now() + this.timeoutMs;
    return upstream.run(
      () =>
        this.limit.run(
          () =>
            this.observer?.upstreamResponse
              ? this.sendObserved(tool, request, context, attempt)
              : this.send(request, context, attempt),
          context.signal,
          Math.max(0, deadline - Date.now()),
        ),
      context.signal,
      this.timeoutMs,
    );
  }

  /** A base URL's origin (scheme, host, port), parsed once per base URL; throws if it is no URL. */
  private originOf(baseUrl: string): string {
    let origin = this.origins.get(baseUrl);
    if (origin === undefined) {
      origin = new URL(baseUrl).origin;
      this.origins.set(baseUrl, origin);
    }
    return origin;
  }

  /**
   * The slots one upstream may hold when none are set: a share of the host's (32 by default)
   * keeps the rest for the other upstreams, so that calls piling up behind a slow one leave
   * them free; where every tool reaches the same upstream there are no others to keep slots
   * for, and a share would only leave half of the host's slots unused under load.
   */
  private defaultPerUpstreamLimit(): number {
    const origins = new Set<string>();
    for (const tool of this.registry.list()) {
      try {
        origins.add(this.originOf(tool.baseUrl));
      } catch {
        // A base URL that does not parse fails its own calls; it is no upstream of its own.
      }
      if (origins.size > 1) return ENGINE_DEFAULTS.maxConcurrentRequestsPerUpstream;
    }
    return this.limit.limit;
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

  /**
   * The bucket a call is paced in: the value of the tool set's pacing parameter (tools
   * without it share one bucket), or the connection its credential acts for.
   */
  private pacingKey(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    credential: Credential | undefined,
  ): string {
    const pacing = tool.toolSetDefinition.traffic?.pacing;
    if (!pacing) return '';
    if ('per' in pacing) return credential?.connection ?? '';
    const keyParam = tool.declaration.params?.find((p) => (p.apiName ?? p.name) === pacing.key);
    return keyParam ? String(args[keyParam.name] ?? '') : '';
  }

  private async pace(tool: RegisteredTool, key: string, context: CallContext): Promise<void> {
    const pacing = tool.toolSetDefinition.traffic?.pacing;
    if (!pacing) return;
    // Pacing must be the last wait before a request leaves: requests released while the
    // sender first loads its HTTP client (hundreds of ms) would otherwise leave together.
    await this.warm();
    // A connection's limit is the vendor account's, whichever tool set calls it (HubSpot's
    // three tool sets share one app's limit per account): tool sets paced per connection at
    // the same rate share one pacer, whose keys name the auth provider.
    const name = 'per' in pacing ? `connection@${pacing.requestsPerSecond}` : tool.toolSet;
    let pacer = this.pacers.get(name);
    if (!pacer) {
      pacer = this.deps.pacer
        ? this.deps.pacer(name, pacing.requestsPerSecond)
        : new Pacer(pacing.requestsPerSecond);
      this.pacers.set(name, pacer);
    }
    // How long is known only once the slot comes: the listener hears of the wait as it starts.
    const ended = context.onWait?.('pacing', undefined);
    let waited: number | undefined;
    try {
      waited = await pacer.wait(key, context.signal);
    } finally {
      // The pacer's own figure where it has one: a slot given at once is no wait, however
      // long the round trip to a shared pacer took.
      ended?.(waited);
    }
    if (waited && waited > 0) this.observer?.rateLimitWait?.(context, tool, 'pacing', waited);
  }

  private async sendObserved(
    tool: RegisteredTool,
    request: HttpRequestSpec,
    context: CallContext,
    attempt: { reached: boolean },
  ): Promise<HttpResponse> {
    const started = performance.now();
    const res = await this.send(request, context, attempt);
    this.observer?.upstreamResponse?.(context, tool, res.status, performance.now() - started);
    return res;
  }

  private async send(
    request: HttpRequestSpec,
    context: CallContext,
    attempt: { reached: boolean },
  ): Promise<HttpResponse> {
    let res: HttpResponse;
    try {
      res = await this.deps.http.send(request, {
        signal: context.signal,
        timeoutMs: this.timeoutMs,
        maxResponseBytes: this.maxResponseBytes,
      });
    } catch (e) {
      // Once set it stays set: one attempt that may have arrived is enough.
      if (!(ToolError.isInstance(e) && e.requestNotSent)) attempt.reached = true;
      throw e;
    }
    attempt.reached = true;
    return res;
  }

  private async credentials(auth: AuthRequirement, context: CallContext): Promise<Credential | undefined> {
    switch (auth.kind) {
      case 'none':
        return undefined;
      case 'secret': {
        const value = await this.deps.secrets?.getSecret(auth.secret, { userId: context.userId });
        if (!value) {
          const how = this.deps.secrets?.describe?.(auth.secret) ?? `provide the secret ${auth.secret}`;
          throw new ToolError({
            code: 'missing_secret',
            retryable: false,
            message: `This tool needs the secret ${auth.secret}, which is not set: ${how}.`,
          });
        }
        if (auth.scheme === 'bearer') return secretCredential(auth.secret, value, `Bearer ${value}`, [value]);
        const basic = Buffer.from(`${value}:`).toString('base64');
        // The base64 of `secret:` carries the secret too, in padded and unpadded form.
        return secretCredential(auth.secret, value, `Basic ${basic}`, [
          value,
          basic,
          basic.replace(/=+$/, ''),
        ]);
      }
      case 'provider': {
        const provider = this.providers.get(auth.provider);
        if (!provider) {
          throw new ToolError({
            code: 'configuration_error',
            retryable: false,
            message: `The auth provider '${auth.provider}' is not configured on this host.`,
          });
        }
        const request: CredentialRequest = {
          userId: context.userId,
          scopes: auth.scopes,
          signal: context.signal,
          ...(context.onWait ? { onWait: context.onWait } : {}),
        };
        const result = await provider.getCredentials(request);
        if (result.kind === 'authorization_required')
          throw this.authorizationRequired(provider.id, auth.scopes, result);
        return {
          header: 'authorization',
          value: `Bearer ${result.token}`,
          sent: [result.token],
          token: result.token,
          provider,
          request,
          connection: `${provider.id}:${result.connection ?? context.userId}`,
        };
      }
    }
  }

  private authorizationRequired(
    provider: string,
    scopes: readonly string[],
    result: { url?: string; message?: string; id?: string },
  ): ToolError {
    return new ToolError({
      code: 'authorization_required',
      // Calling again unchanged fails the same way until a person authorizes: not retryable.
      retryable: false,
      message: result.message ?? `Authorization with '${provider}' is required before this tool can be used.`,
      authorization: {
        provider,
        scopes,
        ...(result.url ? { url: result.url } : {}),
        ...(result.id ? { id: result.id } : {}),
      },
    });
  }
}

/**
 * A secret's credential. A secret names no user: calls sent with the same value act for the
 * same account, whose connection is named only when a pacing policy asks for it (a hash on
 * every call would be wasted otherwise).
 */
function secretCredential(secret: string, value: string, headerValue: string, sent: string[]): Credential {
  return {
    header: 'authorization',
    value: headerValue,
    sent,
    get connection() {
      return `secret:${secret}:${fingerprint(value)}`;
    },
  };
}

/** A short, one-way name for a secret value, so that a pacing key never carries the secret. */
function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 16);
}

/** The credential a declaration sends, as an error names it (never its value). */
function credentialName(auth: AuthRequirement): string | undefined {
  if (auth.kind === 'provider') return `the token of auth provider ${auth.provider}`;
  if (auth.kind === 'secret') return `the secret ${auth.secret}`;
  return undefined;
}
