/**
 * Requests' params refused in words. The SDK checks each request against the protocol's
 * schema, but answers a failure as an internal error (-32603) carrying the validator's raw
 * issue list, and its checks recurse: arguments nested a few thousand levels deep overflow the
 * stack. These name what was expected instead, for an invalid-params error (-32602).
 */

import { nestsDeeperThan } from '@toolhost/engine/internal';

/** Levels of nesting a request's params may have: real tool arguments need a handful. */
export const MAX_PARAMS_DEPTH = 100;

/** Why a request's params are refused before any handler runs, or undefined. */
export function paramsTooDeep(method: string, params: unknown): string | undefined {
  if (!nestsDeeperThan(params, MAX_PARAMS_DEPTH)) return undefined;
  const where = method === 'tools/call' ? 'params.arguments (or params._meta)' : 'params';
  return `Invalid params for ${method}: ${where} nests more than ${MAX_PARAMS_DEPTH} levels deep; expected at most ${MAX_PARAMS_DEPTH} (no tool takes arguments nested that deep).`;
}

/**
 * Why a body's answers (to the server's own requests) are refused before they reach the server,
 * or undefined. An answer to no request the server sent is written into an error message with
 * JSON.stringify, synchronously on the transport's stack: one nested thousands of levels deep
 * overflows it there, failing the whole POST and leaving a batch's requests unanswered. Real
 * answers (a confirmation's form) nest a few levels.
 */
export function answersTooDeep(body: unknown): string | undefined {
  for (const m of Array.isArray(body) ? body : [body]) {
    if (m === null || typeof m !== 'object' || 'method' in m || !('result' in m || 'error' in m)) continue;
    const { result, error } = m as { result?: unknown; error?: unknown };
    if (nestsDeeperThan(result ?? error, MAX_PARAMS_DEPTH))
      return `Invalid Request: an answer nests more than ${MAX_PARAMS_DEPTH} levels deep; expected at most ${MAX_PARAMS_DEPTH}.`;
  }
  return undefined;
}

/**
 * The SDK's schema failure (its message: the validator's issues as JSON, after `Invalid <method>
 * request: ` where the SDK checks the request itself), in words naming each field and what was
 * expected, a record called an object; undefined for any other error.
 */
export function describeSchemaFailure(method: string, error: unknown): string | undefined {
  if (error instanceof RangeError) return paramsTooDeepAnyway(method);
  if (!(error instanceof Error)) return undefined;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message.replace(`Invalid ${method} request: `, ''));
  } catch {
    return undefined;
  }
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const described = issues.slice(0, 5).map((issue: { path?: unknown; message?: unknown }) => {
    const path = Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.join('.') : 'params';
    const message =
      typeof issue.message === 'string'
        ? issue.message.replace(/^Invalid input: /, '').replace(/^expected record\b/, 'expected object')
        : 'invalid';
    return `${path}: ${message}`;
  });
  return `Invalid params for ${method}: ${described.join('; ')}.`;
}

/** A stack overflow while checking params: only their nesting can cause one. */
function paramsTooDeepAnyway(method: string): string {
  return `Invalid params for ${method}: the params nest too deeply to be read; expected at most ${MAX_PARAMS_DEPTH} levels.`;
}
