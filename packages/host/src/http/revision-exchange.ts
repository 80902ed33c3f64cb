import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../mcp/jsonrpc-messages.js';
import {
  modernRevisionOf,
  REVISION_SERVER_METHODS,
  REVISION_SERVER_REVISIONS,
} from '../mcp/protocol-eras.js';
import type { Delivery, RevisionServers } from '../mcp/revision-servers.js';
import {
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  ProtocolErrorCode,
} from '../mcp/sdk.js';
import { EventStream, onClientLeft } from './event-stream.js';
import { firstHeader } from './request-guards.js';

/** `Mcp-Name` values the SDK decodes (base64 of a non-ASCII name) rather than compares as they are. */
const ENCODED_NAME_PREFIX = '=?base64?';

/** A header value without the spaces and tabs around it (RFC 9110's optional whitespace), as the SDK reads it. */
const stripSpaces = (value: string) => value.replace(/^[ \t]+|[ \t]+$/g, '');

/** A 2026-07-28 request a revision server may answer, with the revision its envelope names. */
export interface RevisionRequest {
  message: JSONRPCRequest;
  revision: string;
}

/**
 * The request, when it is one the SDK's entry would pass to its handler as it is: a single
 * JSON-RPC request of a method in REVISION_SERVER_METHODS, a JSON body, a valid `_meta` envelope naming a
 * revision served here, and the `MCP-Protocol-Version`, `Mcp-Method` (and for `tools/call`,
 * `Mcp-Name`) headers present and agreeing with the body. The classification is the SDK's own;
 * only the headers' presence, which the SDK's entry checks after it, is checked here, strictly:
 * whatever this does not accept goes to the entry, which answers it as it always did.
 */
export function revisionRequest(req: IncomingMessage, parsed: unknown): RevisionRequest | undefined {
  if (req.method !== 'POST' || !isObject(parsed)) return undefined;
  const { method } = parsed;
  if (typeof method !== 'string' || !REVISION_SERVER_METHODS.has(method)) return undefined;
  const contentType = firstHeader(req, 'content-type');
  const protocolVersionHeader = firstHeader(req, 'mcp-protocol-version');
  const mcpMethodHeader = firstHeader(req, 'mcp-method');
  const mcpNameHeader = firstHeader(req, 'mcp-name');
  if (!isJsonContentType(contentType ?? null) || !protocolVersionHeader || !mcpMethodHeader) return undefined;
  const revision = modernRevisionOf(parsed, protocolVersionHeader, mcpMethodHeader);
  if (revision === undefined || !REVISION_SERVER_REVISIONS.includes(revision)) return undefined;
  if (method === 'tools/call') {
    const name = isObject(parsed.params) ? parsed.params.name : undefined;
    const named = mcpNameHeader === undefined ? undefined : stripSpaces(mcpNameHeader);
    if (typeof name !== 'string' || named !== name || named.startsWith(ENCODED_NAME_PREFIX)) return undefined;
  }
  return { message: parsed as JSONRPCRequest, revision };
}

/**
 * The HTTP statuses of the JSON-RPC errors the SDK's gates answer before a handler runs, as its
 * per-request transport gives them (its `LADDER_ERROR_HTTP_STATUS`, not exported); any other
 * error is the answer's payload, status 200. -32020 is the header-mismatch error (SEP-2243).
 * Retired when the SDK exports its table.
 */
const GATE_ERROR_STATUS: Readonly<Record<number, number>> = {
  [ProtocolErrorCode.ParseError]: 400,
  [ProtocolErrorCode.InvalidRequest]: 400,
  [ProtocolErrorCode.MethodNotFound]: 404,
  [ProtocolErrorCode.UnsupportedProtocolVersion]: 400,
  [ProtocolErrorCode.MissingRequiredClientCapability]: 400,
  [-32020]: 400,
};

/** The HTTP status of an answer given without a stream. */
function answerStatus(message: JSONRPCMessage, atGate: boolean): number {
  const code = 'error' in message ? message.error.code : undefined;
  if (code === undefined) return 200;
  if (code === ProtocolErrorCode.MissingRequiredClientCapability) return 400;
  return atGate ? (GATE_ERROR_STATUS[code] ?? 200) : 200;
}

/**
 * One HTTP exchange a revision server answers, written to Node's response itself: the answer
 * as one JSON body, or as an event stream once a message related to the request (a progress or
 * log notification) goes out before it: the shapes and statuses the SDK's per-request
 * transport gives, without a web `Request`, `Response` or stream.
 */
class HttpDelivery implements Delivery {
  private stream: EventStream | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly ended: () => void,
  ) {}

  answer(message: JSONRPCMessage, atGate: boolean): void {
    if (this.stream) this.stream.end(message);
    else {
      const body = JSON.stringify(message);
      this.res
        .writeHead(answerStatus(message, atGate), {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        })
        .end(body);
    }
    this.ended();
  }

  notify(message: JSONRPCMessage): void {
    this.stream ??= new EventStream(this.res, { connection: 'keep-alive' });
    this.stream.write(message);
  }

  comment(text: string): void {
    this.stream?.comment(text);
  }

  /** Given up before its answer: 499 if nothing was written yet, else its stream ended. */
  end(): void {
    if (this.stream) this.stream.end();
    else if (!this.res.headersSent) this.res.writeHead(499).end();
    else if (!this.res.writableEnded) this.res.end();
    this.ended();
  }
}

/**
 * Answers the request on `res` by the revision's server; resolves once the answer is written
 * or the client has left, which cancels the request (2026-07-28 cancels by closing the stream).
 */
export async function answerByRevisionServer(
  servers: RevisionServers,
  res: ServerResponse,
  request: RevisionRequest,
  extra: MessageExtraInfo,
): Promise<void> {
  const connection = await servers.connectionFor(request.revision);
  await new Promise<void>((resolve) => {
    const id = connection.serve(request.message, new HttpDelivery(res, resolve), extra);
    onClientLeft(res, () => connection.abandon(id));
  });
}
