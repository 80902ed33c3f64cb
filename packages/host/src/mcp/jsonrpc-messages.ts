import { isObject } from '@toolhost/engine/internal';
import type { JSONRPCMessage } from './sdk.js';

export { isObject };

export type JsonRpcId = string | number;

/**
 * Requests a client may leave unanswered on a session or stdio connection (each holds a call, then
 * its answer): twice the engine's calls at once, so that one client may use them all, at least 128.
 */
export const maxUnanswered = (concurrency: number) => Math.max(128, 2 * concurrency);
export const tooMany = (max: number) =>
  `The client has more than ${max} requests unanswered: send this one again once some are answered.`;
/** Refused under no id: an answer under it would be taken for the running request's. */
export const inUse = (id: unknown) => `Invalid Request: request id ${id} is already in use`;

/**
 * Structural checks of JSON-RPC 2.0 messages, by hand rather than with the SDK's zod schemas:
 * the transport classifies every message of every POST, and a zod parse per message was a
 * measurable share of the per-call cost. The MCP server still validates each request's params
 * against its method's schema; this only tells requests, notifications and answers apart.
 */
export const isId = (v: unknown): v is JsonRpcId => typeof v === 'string' || Number.isSafeInteger(v);

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

/** The members each kind of message may have, as the SDK's strict schemas allow. */
const REQUEST_MEMBERS = ['jsonrpc', 'id', 'method', 'params'];
const ANSWER_MEMBERS = ['jsonrpc', 'id', 'result', 'error'];

/**
 * A JSON-RPC 2.0 message the SDK takes: a request, a notification or an answer. What the SDK's
 * schemas refuse it drops without an answer (params as an array, a member of no message, an id
 * not a whole number), so a request passed on as one would hold its place among the
 * unanswered for good.
 */
export function isMessage(m: unknown): m is JSONRPCMessage {
  if (!isObject(m) || m.jsonrpc !== '2.0') return false;
  const request = typeof m.method === 'string';
  if (!Object.keys(m).every((k) => (request ? REQUEST_MEMBERS : ANSWER_MEMBERS).includes(k))) return false;
  if (request)
    return (m.id === undefined || isId(m.id)) && (m.params === undefined || wellFormedParams(m.params));
  if (!isId(m.id) && (m.id != null || !('error' in m))) return false;
  if ('result' in m) return !('error' in m) && wellFormedParams(m.result);
  return isObject(m.error) && Number.isSafeInteger(m.error.code) && typeof m.error.message === 'string';
}

/** Params (or a result) as the SDK reads them: an object; its `_meta` one, with an id for progress token and a task id. */
function wellFormedParams(params: unknown): boolean {
  // Absent is as good as empty; null is not (the SDK's optional members refuse it).
  const meta = !isObject(params) ? undefined : params._meta === undefined ? {} : params._meta;
  const task = isObject(meta) ? meta['io.modelcontextprotocol/related-task'] : undefined;
  return (
    isObject(meta) &&
    (task === undefined || (isObject(task) && typeof task.taskId === 'string')) &&
    (meta.progressToken === undefined || isId(meta.progressToken))
  );
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

/** JSON-RPC has no code for a cancelled request; -32800 is LSP's RequestCancelled. */
export const REQUEST_CANCELLED = -32800;
/** The code MCP gives an unsupported protocol version (with the supported ones in `data`). */
export const UNSUPPORTED_VERSION = -32022;
