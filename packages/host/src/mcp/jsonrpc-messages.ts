import type { JSONRPCMessage } from './sdk.js';

export type JsonRpcId = string | number;

/** Requests a client may leave unanswered (each holds a call, then its answer): twice the engine's calls at once. */
export const MAX_UNANSWERED = 128;
export const TOO_MANY = `The client has more than ${MAX_UNANSWERED} requests unanswered: send this one again once some are answered.`;

/**
 * Structural checks of JSON-RPC 2.0 messages, by hand rather than with the SDK's zod schemas:
 * the transport classifies every message of every POST, and a zod parse per message was a
 * measurable share of the per-call cost. The MCP server still validates each request's params
 * against its method's schema; this only tells requests, notifications and answers apart.
 */
const isId = (v: unknown): v is JsonRpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** A JSON object (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `_meta` of a message's params, where both are objects. */
export function metaOf(m: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = isObject(m.params) ? m.params._meta : undefined;
  return isObject(meta) ? meta : undefined;
}

/** A request: a method and an id. */
export function isRequest(m: unknown): m is { jsonrpc: '2.0'; id: JsonRpcId; method: string } {
  return isObject(m) && typeof m.method === 'string' && isId(m.id);
}

/** An answer (result or error) to a request. */
export function isAnswer(m: unknown): m is { jsonrpc: '2.0'; id: JsonRpcId } {
  return isObject(m) && m.method === undefined && isId(m.id) && ('result' in m || 'error' in m);
}

/** A well-formed JSON-RPC 2.0 message: a request, a notification or an answer. */
export function isMessage(m: unknown): m is JSONRPCMessage {
  if (!isObject(m) || m.jsonrpc !== '2.0') return false;
  if (m.params !== undefined && !isObject(m.params) && !Array.isArray(m.params)) return false;
  if (typeof m.method === 'string')
    return !('result' in m || 'error' in m) && (m.id === undefined || isId(m.id));
  if (!isId(m.id) && m.id !== null) return false;
  return 'result' in m !== 'error' in m && (!('error' in m) || isObject(m.error));
}

/** Whether a message is the `initialize` request. */
export function isInitialize(m: unknown): m is { jsonrpc: '2.0'; id: JsonRpcId; method: 'initialize' } {
  return isRequest(m) && m.method === 'initialize';
}

/** The ids of the requests (not notifications) in a message or batch. */
export function requestIdsOf(parsed: unknown): JsonRpcId[] {
  return (Array.isArray(parsed) ? parsed : [parsed]).filter(isRequest).map((m) => m.id);
}

/** Whether a POST carries only answers to the server's own requests or cancellations of the client's. */
export function forRunningRequests(parsed: unknown): boolean {
  const messages = [parsed].flat();
  return messages.length > 0 && messages.every((m) => isAnswer(m) || cancelledRequestOf(m) !== undefined);
}

/** The request a `notifications/cancelled` message names, if it is one. */
export function cancelledRequestOf(m: unknown): JsonRpcId | undefined {
  if (!isObject(m) || m.method !== 'notifications/cancelled' || m.id !== undefined) return undefined;
  const id = isObject(m.params) ? m.params.requestId : undefined;
  return isId(id) ? id : undefined;
}

/** A JSON-RPC error answer; its id null where the request's is none (or could not be read). */
export function errorAnswer(id: unknown, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id: isId(id) ? id : null, error: { code, message } } as JSONRPCMessage;
}
