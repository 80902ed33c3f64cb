import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody, writeJson } from './http-body.js';

export class BadRequest extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The request body as text; past `limit` bytes, the OAuth error invalid_request with status 413. */
export async function readBodyWithin(req: IncomingMessage, limit: number): Promise<string> {
  try {
    return await readBody(req, limit);
  } catch (e) {
    throw e instanceof BodyTooLarge ? new BadRequest(413, 'invalid_request', e.message) : e;
  }
}

/** A form body (application/x-www-form-urlencoded), each parameter at most once (RFC 6749 §3.1). */
export async function readForm(req: IncomingMessage, limit = 64 * 1024): Promise<Map<string, string>> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    req.resume();
    throw new BadRequest(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
  }
  return singleParameters(new URLSearchParams(await readBodyWithin(req, limit)));
}

/** Parameters that appear once each; a repeated one is refused, as OAuth asks. */
export function singleParameters(params: URLSearchParams): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of params) {
    if (map.has(name)) throw new BadRequest(400, 'invalid_request', `The parameter ${name} is repeated`);
    map.set(name, value);
  }
  return map;
}

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/**
 * A JSON answer that no cache keeps (tokens, registrations, errors), unless `headers` say how it
 * is cached (metadata, keys): then without HTTP/1.0's `pragma: no-cache`, which would contradict it.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  writeJson(res, status, value, { ...('cache-control' in headers ? {} : NO_STORE), ...headers });
}

/** An OAuth error answer (RFC 6749 §5.2). */
export function sendOAuthError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error, error_description: description }, headers);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string> = {}): void {
  res.writeHead(303, { location, ...NO_STORE, ...headers });
  res.end();
}

/** Browsers and other origins may read these (metadata, token, registration): no cookies involved. */
export const OPEN_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-max-age': '600',
};
