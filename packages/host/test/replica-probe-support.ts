import type { JSONRPCMessage, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach } from 'vitest';
import { SessionTransport } from '../src/http/session-transport.js';
import { Server } from '../src/mcp/sdk.js';

// What the replica probes read of the replicas in this process: each session transport and MCP
// server made (on every replica), to show what per-request state they still hold; and what
// Redis holds without an expiry.

/** The SDK server's per-request maps, read to show that nothing of a call outlives it. */
interface ProtocolInsides {
  _requestHandlerAbortControllers: Map<unknown, AbortController>;
  _responseHandlers: Map<unknown, unknown>;
  _progressHandlers: Map<unknown, unknown>;
  _timeoutInfo: Map<unknown, unknown>;
}

export const seen = { transports: new Set<SessionTransport>(), servers: new Set<Server>() };

/** Records every session transport and MCP server the replicas of this process make, during each test. */
export function watchSessions(): void {
  const transportProto = SessionTransport.prototype;
  const serverProto = Server.prototype;
  const handleRequest = transportProto.handleRequest;
  const resume = transportProto.resume;
  const connect = serverProto.connect;
  beforeEach(() => {
    transportProto.handleRequest = function (this: SessionTransport, ...args) {
      seen.transports.add(this);
      return handleRequest.apply(this, args);
    };
    transportProto.resume = function (this: SessionTransport, ...args) {
      seen.transports.add(this);
      return resume.apply(this, args);
    };
    serverProto.connect = function (this: Server, ...args) {
      seen.servers.add(this);
      return connect.apply(this, args);
    };
  });
  afterEach(() => {
    transportProto.handleRequest = handleRequest;
    transportProto.resume = resume;
    serverProto.connect = connect;
    seen.transports.clear();
    seen.servers.clear();
  });
}

/** Requests still held per transport, and requests still running or awaited per MCP server. */
export function perRequestState(): { unanswered: number; handlers: number; awaited: number } {
  let unanswered = 0;
  let handlers = 0;
  let awaited = 0;
  for (const t of seen.transports) unanswered += t.openRequests;
  for (const s of seen.servers) {
    const p = s as unknown as ProtocolInsides;
    handlers += p._requestHandlerAbortControllers.size;
    awaited += p._responseHandlers.size + p._progressHandlers.size + p._timeoutInfo.size;
  }
  return { unanswered, handlers, awaited };
}

/** Keys the host keeps on purpose without an expiry: the tokens and the shared salt. */
const LASTING = /^toolhost:(token:|token-salt$)/;

/** Every key in Redis (SCAN) the host wrote without an expiry, other than tokens and the salt. */
export async function keysWithoutExpiry(admin: Redis): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'COUNT', 500);
    cursor = next;
    for (const key of keys) if (!LASTING.test(key) && (await admin.pttl(key)) === -1) found.push(key);
  } while (cursor !== '0');
  return found;
}

/** Every message the client's transport receives, in order (answers after a cancellation included). */
export function recordIncoming(transport: StreamableHTTPClientTransport): JSONRPCMessage[] {
  const got: JSONRPCMessage[] = [];
  const onmessage = transport.onmessage;
  transport.onmessage = (...args: Parameters<NonNullable<typeof onmessage>>) => {
    got.push(args[0]);
    onmessage?.(...args);
  };
  return got;
}
