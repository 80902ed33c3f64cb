import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance, isAxiosError } from 'axios';
import type { HttpRequestSpec } from './build-request.js';
import { ToolError } from './tool-error.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON where the body is JSON, the text otherwise, `null` when empty. */
  body: unknown;
}

export interface SendOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** Sends one HTTP request. The engine's only way out to the network. */
export interface HttpSender {
  send(request: HttpRequestSpec, options: SendOptions): Promise<HttpResponse>;
  /** Releases pooled connections. */
  close?(): void;
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

/**
 * The axios-based sender: keep-alive pools per upstream, no redirects (a redirect could carry
 * credentials to another host), every status returned rather than thrown.
 */
export class AxiosHttpSender implements HttpSender {
  private readonly client: AxiosInstance;
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };

  constructor() {
    this.client = axios.create({
      httpAgent: this.agents.http,
      httpsAgent: this.agents.https,
      maxRedirects: 0,
      validateStatus: () => true,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      transitional: { silentJSONParsing: true, forcedJSONParsing: false, clarifyTimeoutError: true },
    });
  }

  async send(request: HttpRequestSpec, options: SendOptions): Promise<HttpResponse> {
    try {
      const res = await this.client.request<string>({
        method: request.method,
        url: request.url,
        headers: request.headers,
        data: request.body,
        signal: options.signal,
        timeout: options.timeoutMs,
        maxContentLength: options.maxResponseBytes,
        maxBodyLength: Number.POSITIVE_INFINITY,
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined && v !== null) headers[k] = String(v);
      const text = typeof res.data === 'string' ? res.data : '';
      return { status: res.status, headers, body: parseBody(text, headers['content-type']) };
    } catch (e) {
      throw translateError(e, options);
    }
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/** Failures that happen before a request can have reached the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function translateError(e: unknown, options: SendOptions): ToolError {
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
