import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { type CallSignal, ToolError } from '@toolhost/core';
import type { AxiosInstance } from 'axios';
import type { HttpRequestSpec } from './build-request.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON where the body is JSON, the text otherwise, `null` when empty. */
  body: unknown;
}

export interface SendOptions {
  signal?: CallSignal;
  /** The whole exchange, from sending to the last byte of the answer. */
  timeoutMs: number;
  maxResponseBytes: number;
}

/** Sends one HTTP request. The engine's only way out to the network. */
export interface HttpSender {
  send(request: HttpRequestSpec, options: SendOptions): Promise<HttpResponse>;
  /** Releases pooled connections. */
  close?(): void;
  /** Loads what sending needs ahead of the first request (called when the host is otherwise idle). */
  warm?(): Promise<void>;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text.length === 0) return null;
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** True when the environment names an HTTP(S) proxy that axios would look up for every request. */
function proxyConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return ['http_proxy', 'https_proxy', 'all_proxy'].some((k) => env[k] || env[k.toUpperCase()]);
}

/**
 * The axios-based sender: keep-alive pools per upstream, no redirects (a redirect could carry
 * credentials to another host), every status returned rather than thrown.
 *
 * axios and the agents are loaded on the first request, so a host that only lists tools
 * never pays for them. Without proxy variables in the environment (read once, here), axios is
 * told so instead of looking them up again on every request.
 */
export class AxiosHttpSender implements HttpSender {
  private client?: AxiosInstance;
  private loading?: Promise<AxiosInstance>;
  private agents?: { http: HttpAgent; https: HttpsAgent };
  private readonly useEnvProxy: boolean;

  constructor(env: Readonly<Record<string, string | undefined>> = process.env) {
    this.useEnvProxy = proxyConfigured(env);
  }

  private load(): Promise<AxiosInstance> {
    this.loading ??= Promise.all([import('axios'), import('node:http'), import('node:https')]).then(
      ([{ default: axios }, http, https]) => {
        this.agents = {
          http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
          https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
        };
        this.client = axios.create({
          adapter: 'http',
          httpAgent: this.agents.http,
          httpsAgent: this.agents.https,
          ...(this.useEnvProxy ? {} : { proxy: false as const }),
          maxRedirects: 0,
          maxBodyLength: Number.POSITIVE_INFINITY,
          validateStatus: null,
          responseType: 'text',
          transformResponse: [(data: unknown) => data],
          transitional: { silentJSONParsing: true, forcedJSONParsing: false, clarifyTimeoutError: true },
        });
        return this.client;
      },
    );
    return this.loading;
  }

  async warm(): Promise<void> {
    await this.load();
  }

  async send(request: HttpRequestSpec, options: SendOptions): Promise<HttpResponse> {
    const client = this.client ?? (await this.load());
    // axios's own timeout is a socket idle timeout: an answer trickling in a byte at a time
    // never trips it. One deadline for the whole exchange aborts the request instead; the
    // caller's signal is forwarded to the same controller.
    const exchange = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort();
    }, options.timeoutMs);
    const outer = options.signal;
    const forward = () => exchange.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    try {
      const res = await client.request<string>({
        method: request.method,
        url: request.url,
        headers: request.headers,
        data: request.body,
        signal: exchange.signal,
        maxContentLength: options.maxResponseBytes,
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined && v !== null) headers[k] = String(v);
      const text = typeof res.data === 'string' ? res.data : '';
      return { status: res.status, headers, body: parseBody(text, headers['content-type']) };
    } catch (e) {
      throw translateError(e, options, timedOut);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    }
  }

  close(): void {
    this.agents?.http.destroy();
    this.agents?.https.destroy();
  }
}

/** What axios throws for a failed request (checked by shape: axios itself loads lazily). */
interface AxiosFailure {
  isAxiosError: true;
  code?: string;
  message: string;
  config?: { url?: string };
}

function isAxiosError(e: unknown): e is AxiosFailure {
  return typeof e === 'object' && e !== null && (e as { isAxiosError?: unknown }).isAxiosError === true;
}

/** Failures that happen before a request can have reached the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function translateError(e: unknown, options: SendOptions, timedOut: boolean): ToolError {
  if (timedOut && !options.signal?.aborted) {
    return new ToolError({
      code: 'timeout',
      message: `The upstream did not answer within ${options.timeoutMs} ms.`,
      retryable: true,
    });
  }
  if (isAxiosError(e)) {
    if (e.code === 'ERR_CANCELED' || options.signal?.aborted) {
      return new ToolError({ code: 'cancelled', message: 'The call was cancelled.', retryable: true });
    }
    if (e.code === 'ETIMEDOUT' || e.code === 'ECONNABORTED') {
      return new ToolError({
        code: 'timeout',
        message: `The upstream did not answer within ${options.timeoutMs} ms.`,
        retryable: true,
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
    return new ToolError(
      {
        code: 'upstream_unavailable',
        message: `Could not reach ${host} (${e.code ?? 'network error'}).`,
        retryable: true,
      },
      { requestNotSent: NOT_SENT.has(e.code ?? '') },
    );
  }
  return new ToolError({
    code: 'internal_error',
    message: 'Sending the request failed unexpectedly.',
    retryable: false,
  });
}
