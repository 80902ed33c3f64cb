import { type CallSignal, ToolError } from '@toolhost/core';
import type { Axios, AxiosRequestConfig } from 'axios';
import { parseAnswerJson } from './answer-json.js';
import type { HttpRequestSpec } from './build-request.js';
import { DEPARTURE_HOOK } from './departure-hook.js';
import { ENGINE_DEFAULTS } from './engine-defaults.js';
import { UNDECODABLE_BODY } from './undecodable-body.js';
import type { UpstreamDispatcher } from './upstream-dispatcher.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /**
   * Parsed JSON where the body is JSON (a number a double would change as the string of its
   * literal: `parseAnswerJson`), the text otherwise, `null` when empty.
   */
  body: unknown;
}

export interface SendOptions {
  signal?: CallSignal;
  /** The whole exchange, from sending to the last byte of the answer. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** Called as the request is written to its connection (once it is open). */
  onDeparture?: () => void;
}

/** Sends one HTTP request. The engine's only way out to the network. */
export interface HttpSender {
  send(request: HttpRequestSpec, options: SendOptions): Promise<HttpResponse>;
  /** Releases pooled connections. */
  close?(): void;
  /** Loads what sending needs ahead of the first request (called when the host is otherwise idle). */
  warm?(): Promise<void>;
}

/**
 * Deeper JSON is kept as its text. Every walk over a parsed body recurses (redaction, the
 * bounded error body, JSON.stringify when a result is rendered or an outcome stored), and a
 * few kilobytes of brackets exhaust the stack at about 2,000 levels, which turned an
 * upstream's answer into `internal_error`. Vendors' answers nest a few dozen levels at most.
 */
export const MAX_JSON_DEPTH = 512;

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text.length === 0) return null;
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return parseAnswerJson(text, MAX_JSON_DEPTH);
    } catch {
      // Not JSON, or nested too deep.
      return text;
    }
  }
  return text;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The engine's sender, over undici: keep-alive pools per upstream, no redirects (a redirect
 * could carry credentials to another host), every status returned rather than thrown.
 *
 * axios builds each request (config, headers, params, errors) and an adapter hands it to one
 * undici Agent, which sends it, rather than axios's own http adapter: on the bench machine a
 * request cost about 450 µs of CPU through axios's http adapter and about 270 µs through
 * undici (most of the rest is axios's own pipeline), the largest single cost of a tool call.
 *
 * axios, undici and the pools are loaded on the first request, so a host that only lists
 * tools never pays for them. Proxy variables are read from `env` once, at that point.
 */
export class UndiciHttpSender implements HttpSender {
  private client?: Axios;
  private loading?: Promise<Axios>;
  private upstream?: UpstreamDispatcher;

  /**
   * `connections`: kept open to one upstream at most, the engine's `maxConcurrentRequests`: its
   * slots bound what is in flight, and a smaller pool would hold requests the engine counts as
   * sent (a fixed 64 held all but 64 of a host configured for more).
   */
  constructor(
    private readonly env: Env = process.env,
    private readonly connections: number = ENGINE_DEFAULTS.maxConcurrentRequests,
  ) {}

  private load(): Promise<Axios> {
    this.loading ??= Promise.all([
      import('axios'),
      import('./undici-adapter.js'),
      import('./upstream-dispatcher.js'),
    ]).then(([{ default: axios }, { createUndiciAdapter }, { createUpstreamDispatcher }]) => {
      // No undici timeouts: the sender's own deadline covers the whole exchange.
      this.upstream = createUpstreamDispatcher(this.env, {
        connections: this.connections,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      // An Axios of its own rather than axios.create(): create() merges in every global
      // default (a header bucket per method, xsrf names, timeouts the adapter never reads),
      // and axios merges them all again into each request's config, a fifth of a call's
      // time in the sender when the host is otherwise idle. What is left is what the pipeline
      // and the adapter read, and axios's Accept header. No transforms: buildRequest
      // serializes every body to JSON text, which axios's default request transform would
      // only parse again to hand back unchanged, and the sender parses answers itself (so no
      // `transitional` JSON options either, which axios would validate on every request).
      this.client = new axios.Axios({
        adapter: createUndiciAdapter(this.upstream.dispatcher),
        validateStatus: null,
        responseType: 'text',
        transformRequest: [],
        transformResponse: [],
        // Typed as AxiosHeaders, but axios's own defaults hold a plain object here too.
        headers: {
          common: { Accept: 'application/json, text/plain, */*' },
        } as unknown as AxiosRequestConfig['headers'],
      });
      return this.client;
    });
    return this.loading;
  }

  async warm(): Promise<void> {
    await this.load();
  }

  async send(request: HttpRequestSpec, options: SendOptions): Promise<HttpResponse> {
    const client = this.client ?? (await this.load());
    // Whether the request was written to its connection: a timeout after that may have been taken.
    let departed = false;
    const onDeparture = () => {
      departed = true;
      options.onDeparture?.();
    };
    try {
      // `timeout` is the adapter's deadline for the whole exchange, from sending to the last
      // byte (an answer trickling in a byte at a time must not outlive it); the caller's
      // signal goes to the adapter as it is, rather than through an AbortController of the
      // sender's own that both would abort (a tenth of the sender's CPU per call).
      const res = await client.request<string>({
        method: request.method,
        url: request.url,
        // axios gives every POST, PUT and PATCH a form Content-Type unless one is set, body or
        // not: a request without a body would tell the vendor it carries a form. `false` is
        // axios's mark for a header left out.
        headers: request.body === undefined ? { ...request.headers, 'content-type': false } : request.headers,
        data: request.body,
        signal: options.signal,
        timeout: options.timeoutMs,
        maxContentLength: options.maxResponseBytes,
        // A symbol key axios's config type does not know of: spread, past its excess property check.
        ...{ [DEPARTURE_HOOK]: onDeparture },
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined && v !== null) headers[k] = String(v);
      const text = typeof res.data === 'string' ? res.data : '';
      return { status: res.status, headers, body: parseBody(text, headers['content-type']) };
    } catch (e) {
      throw translateError(e, options, departed);
    }
  }

  /** Cuts off the pooled connections; a later request opens new ones. */
  close(): void {
    void this.upstream?.destroy();
    this.upstream = undefined;
    this.client = undefined;
    this.loading = undefined;
  }
}

/** What axios throws for a failed request (checked by shape: axios itself loads lazily). */
interface AxiosFailure {
  isAxiosError: true;
  code?: string;
  message: string;
  config?: { url?: string };
  response?: { status: number };
}

function isAxiosError(e: unknown): e is AxiosFailure {
  return typeof e === 'object' && e !== null && (e as { isAxiosError?: unknown }).isAxiosError === true;
}

/** Failures that happen before a request can have reached the server. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // undici's connect timeout (10 s): the connection was never made.
  'UND_ERR_CONNECT_TIMEOUT',
  // The proxy hung up before the tunnel to the upstream was open.
  'UND_ERR_PRX_CONN',
]);

function translateError(e: unknown, options: SendOptions, departed: boolean): ToolError {
  if (isAxiosError(e)) {
    if (e.code === 'ERR_CANCELED' || options.signal?.aborted) {
      // Cancelled once sent (a shutdown's grace over): a write may be done, and must be told so.
      return new ToolError({
        code: 'cancelled',
        message: departed
          ? 'The call was cancelled after its request was sent: the upstream may have received it, and applied it if it writes.'
          : 'The call was cancelled.',
        retryable: true,
      });
    }
    if (e.code === 'ETIMEDOUT' || e.code === 'ECONNABORTED') {
      return new ToolError({
        code: 'timeout',
        // As for a broken-off answer: a write read as unanswered is sent again.
        message: departed
          ? `The upstream did not answer in full within ${options.timeoutMs} ms; it may have received the request, and applied it if it writes.`
          : `The upstream did not answer within ${options.timeoutMs} ms.`,
        retryable: true,
      });
    }
    if (e.code === UNDECODABLE_BODY) {
      // Answered, and a write applied: sending it again would apply it twice for the same answer.
      return new ToolError({
        code: 'upstream_error',
        status: e.response?.status,
        message: `The upstream answered HTTP ${e.response?.status}, its body in ${e.message}, so it is not shown; the request was received, and applied if it writes.`,
        retryable: false,
      });
    }
    if (e.code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(e.message)) {
      return new ToolError({
        code: 'response_too_large',
        message: `The upstream response exceeded the limit of ${options.maxResponseBytes} bytes.`,
        retryable: false,
      });
    }
    // Only the error code and host: the message of a network error can carry the full URL.
    let host = 'the upstream';
    try {
      host = new URL(e.config?.url ?? '').host || host;
    } catch {}
    const failure = e.code ?? 'network error';
    const notSent = NOT_SENT.has(e.code ?? '');
    return new ToolError(
      {
        code: 'upstream_unavailable',
        // "Could not reach" only where that is so: a write whose answer broke off (a reset, a
        // body that fails to decompress) was taken, and read as unreached it is sent again.
        message: notSent
          ? `Could not reach ${host} (${failure}).`
          : `The exchange with ${host} failed (${failure}) after the request was sent: the upstream may have received it, and applied it if it writes.`,
        retryable: true,
      },
      { requestNotSent: notSent },
    );
  }
  return new ToolError({
    code: 'internal_error',
    message: 'Sending the request failed unexpectedly.',
    retryable: false,
  });
}
