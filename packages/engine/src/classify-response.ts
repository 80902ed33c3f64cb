import { ToolError } from '@toolhost/core';
import type { HttpResponse } from './http-sender.js';

const MAX_UPSTREAM_ERROR_CHARS = 4000;

/** Keeps an upstream error body useful to an agent but bounded in size. */
function boundedBody(body: unknown): unknown {
  if (body === null || body === undefined) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (text.length <= MAX_UPSTREAM_ERROR_CHARS) return body;
  return `${text.slice(0, MAX_UPSTREAM_ERROR_CHARS)}… (truncated, ${text.length} characters)`;
}

const DELAY_SECONDS = /^\d+(\.\d+)?$/;
const MONTH = /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/i;

/**
 * Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined where it is
 * neither. A header sent twice arrives joined (`5, 10`): the longest wait it asks for. An HTTP
 * date, in each of its three forms, names its month; the rest is not handed to Date.parse,
 * which takes `-5` or `5, 10` for days in 2001, a wait of 0 s.
 */
export function retryAfterSeconds(headers: Record<string, string>, now = Date.now()): number | undefined {
  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  const delays = value.split(/\s*,\s*/);
  if (delays.every((d) => DELAY_SECONDS.test(d))) return Math.max(...delays.map(Number));
  if (!MONTH.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * What a 401 or 403 means, naming the credential that was sent (`credential`: "the token of
 * auth provider crm-auth-provider", "the secret CDP_API_KEY"), so a person knows what to replace
 * rather than reading a bare status.
 */
function authMeaning(status: number, credential: string | undefined): string {
  const what = credential ?? 'the credential sent';
  if (status === 401) return `: the upstream rejected ${what} (wrong, expired or revoked)`;
  if (status === 403)
    return `: the upstream accepted ${what} but refused this request (a missing scope or permission)`;
  return '';
}

/** Turns a non-2xx upstream response into the structured tool error of its kind. */
export function errorForResponse(res: HttpResponse, credential?: string): ToolError {
  const upstream = boundedBody(res.body);
  if (res.status === 429) {
    const after = retryAfterSeconds(res.headers);
    return new ToolError({
      code: 'upstream_rate_limited',
      status: 429,
      upstream,
      retryable: true,
      ...(after !== undefined ? { retryAfterSeconds: after } : {}),
      message: `The upstream rate limit was reached${after !== undefined ? `; retry after ${after} s` : ''}.`,
    });
  }
  const retryable = res.status >= 500 || res.status === 408;
  return new ToolError({
    code: 'upstream_error',
    status: res.status,
    upstream,
    retryable,
    message: `The upstream answered HTTP ${res.status}${authMeaning(res.status, credential)}.`,
  });
}
