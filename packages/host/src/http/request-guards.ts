import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '@toolhost/authorization-server/http-body';
import { isId, isObject, type JsonRpcId } from '../mcp/jsonrpc-messages.js';
import { isJsonContentType } from '../mcp/sdk.js';

export type { JsonRpcId };

/** The first value of a request header (Node gives a list for a repeated one). */
export function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The id of a body that is one JSON-RPC request with a valid id, so that an error about it can name it. */
export const requestIdOf = (body: unknown): JsonRpcId | null =>
  isObject(body) && isId(body.id) ? body.id : null;

export function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  options: { code?: number; id?: JsonRpcId | null; headers?: Record<string, string>; data?: unknown } = {},
): void {
  if (res.headersSent) return;
  const error = { code: options.code ?? -32000, message, ...(options.data ? { data: options.data } : {}) };
  writeJson(res, status, { jsonrpc: '2.0', error, id: options.id ?? null }, options.headers);
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
export const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

/** Browsers' Origin: loopback ones and those configured (DNS-rebinding protection). */
export function originAllowed(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  return !origin || LOOPBACK_ORIGIN.test(origin) || allowed.has(origin);
}

/**
 * The Host header values this server answers to: the bound address (loopback names for a
 * loopback or wildcard bind), `http.publicUrl`'s host and `http.allowedHosts`. A page on
 * evil.com that rebinds its name to 127.0.0.1 sends `Host: evil.com`, often with no Origin
 * at all (a simple request), so the Host is what tells it apart. A wildcard bind with
 * neither a public URL nor allowed hosts cannot know its names and accepts any.
 */
export function hostGuard(options: {
  bindHost: string;
  port: number;
  publicUrl?: string;
  allowedHosts?: readonly string[];
}): (host: string | undefined) => boolean {
  const { bindHost, port } = options;
  const names = new Set<string>();
  const add = (name: string) => {
    names.add(`${name}:${port}`.toLowerCase());
    if (port === 80) names.add(name.toLowerCase());
  };
  if (LOOPBACK_HOSTS.has(bindHost) || WILDCARD_HOSTS.has(bindHost)) {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) add(name);
  }
  if (!WILDCARD_HOSTS.has(bindHost)) add(bindHost.includes(':') ? `[${bindHost}]` : bindHost);
  const extra = [...(options.allowedHosts ?? [])];
  if (options.publicUrl) extra.push(new URL(options.publicUrl).host);
  for (const name of extra) names.add(name.toLowerCase());
  const anyHost = WILDCARD_HOSTS.has(bindHost) && extra.length === 0;
  return (host) => anyHost || (host !== undefined && names.has(host.toLowerCase()));
}

/**
 * Whether a POST is refused for its headers (answered): the client must accept both answer
 * forms, and send JSON (as the SDK reads its media type). Checked before a session is opened
 * too, so that none is made, or recorded in the shared store, for a request that is then refused.
 */
export function postRefused(req: IncomingMessage, res: ServerResponse, id: JsonRpcId | null): boolean {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    notAcceptable(res, 'both application/json and text/event-stream', id);
    return true;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    jsonRpcError(res, 415, 'Unsupported Media Type: Content-Type must be application/json', { id });
    return true;
  }
  return false;
}

/** 406: the client does not accept what this answer must be. */
export function notAcceptable(res: ServerResponse, what: string, id: JsonRpcId | null = null): void {
  jsonRpcError(res, 406, `Not Acceptable: the client must accept ${what}`, { id });
}
