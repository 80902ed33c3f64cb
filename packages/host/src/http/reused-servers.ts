import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../mcp/jsonrpc-messages.js';
import { REUSED_METHODS, REUSED_REVISIONS } from '../mcp/reused-requests.js';
import {
  classifyInboundRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  PerRequestHTTPServerTransport,
  ProtocolErrorCode,
  type RequestId,
  type Server,
  type TransportSendOptions,
} from '../mcp/sdk.js';
import { firstHeader } from './request-guards.js';

/** Idle servers kept for the next requests; beyond it (a burst), a server is closed once it has answered. */
const MAX_IDLE = 256;

/** `Mcp-Name` values the SDK decodes (base64 of a non-ASCII name) rather than compares as they are. */
const ENCODED_NAME_PREFIX = '=?base64?';

/** A header value without the spaces and tabs around it (RFC 9110's optional whitespace), as the SDK reads it. */
const stripSpaces = (value: string) => value.replace(/^[ \t]+|[ \t]+$/g, '');

/** A 2026-07-28 request a reused server may answer, with the revision its envelope names. */
export interface ReusableRequest {
  message: JSONRPCRequest;
  revision: string;
}

/**
 * The request, when it is one the SDK's entry would pass to its handler as it is: a single
 * JSON-RPC request of a method in REUSED_METHODS, a JSON body, a valid `_meta` envelope naming a
 * revision served here, and the `MCP-Protocol-Version`, `Mcp-Method` (and for `tools/call`,
 * `Mcp-Name`) headers present and agreeing with the body. The classification is the SDK's own;
 * only the headers' presence, which the SDK's entry checks after it, is checked here, strictly:
 * whatever this does not accept goes to the entry, which answers it as it always did.
 */
export function reusableRequest(req: IncomingMessage, parsed: unknown): ReusableRequest | undefined {
  if (req.method !== 'POST' || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return undefined;
  const method = (parsed as { method?: unknown }).method;
  if (typeof method !== 'string' || !REUSED_METHODS.has(method)) return undefined;
  const contentType = firstHeader(req, 'content-type');
  const protocolVersionHeader = firstHeader(req, 'mcp-protocol-version');
  const mcpMethodHeader = firstHeader(req, 'mcp-method');
  const mcpNameHeader = firstHeader(req, 'mcp-name');
  if (!isJsonContentType(contentType ?? null) || !protocolVersionHeader || !mcpMethodHeader) return undefined;
  const revision = classifiedRevision(
    parsed as Record<string, unknown>,
    protocolVersionHeader,
    mcpMethodHeader,
  );
  if (revision === undefined || !REUSED_REVISIONS.includes(revision)) return undefined;
  if (method === 'tools/call') {
    const name = ((parsed as { params?: unknown }).params as { name?: unknown } | undefined)?.name;
    const named = mcpNameHeader === undefined ? undefined : stripSpaces(mcpNameHeader);
    if (typeof name !== 'string' || named !== name || named.startsWith(ENCODED_NAME_PREFIX)) return undefined;
  }
  return { message: parsed as JSONRPCRequest, revision };
}

/** The SDK's verdicts by what they depend on (see classifiedRevision), at most this many kept. */
const MAX_VERDICTS = 256;
const verdicts = new Map<string, string | null>();

/** The `_meta` keys MCP reserves (the envelope, a task's relation): its classification reads them all. */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

// Narrower than JSON-RPC's ids (jsonrpc-messages' isId takes any number): the SDK's schemas
// take whole numbers only, and a request this does not vouch for is classified every time.
const isRequestId = (id: unknown) => typeof id === 'string' || Number.isSafeInteger(id);

/**
 * The revision the SDK's classification gives a modern request, undefined for anything else.
 *
 * The classification checks the message's shape with zod three times (is it a result, an
 * error, a request) and the envelope once more, about 4% of a 2026-07-28 request's CPU, and a
 * client sends the same envelope with every request. So a request of a plain shape (JSON-RPC
 * 2.0, an id, a params object whose `_meta` holds no progress token of an odd type, and no
 * `result` or `error`: shapes the SDK's schemas accept whatever the payload) has its verdict
 * looked up by what the verdict depends on beyond that shape: the method, the two headers and
 * the reserved `_meta` keys. Only the first request of each such combination is classified;
 * any other shape is classified every time, as before.
 */
function classifiedRevision(
  message: Record<string, unknown>,
  protocolVersionHeader: string,
  mcpMethodHeader: string,
): string | undefined {
  const key = verdictKey(message, protocolVersionHeader, mcpMethodHeader);
  const known = key === undefined ? undefined : verdicts.get(key);
  if (known !== undefined) return known ?? undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    body: message,
    protocolVersionHeader,
    mcpMethodHeader,
  });
  const revision =
    route.kind === 'modern' && route.messageKind === 'request' ? route.classification.revision : undefined;
  if (key !== undefined) {
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(key, revision ?? null);
  }
  return revision;
}

/** What a plain-shaped request's verdict depends on; undefined for a request of any other shape. */
function verdictKey(message: Record<string, unknown>, versionHeader: string, methodHeader: string) {
  if (message.jsonrpc !== '2.0' || !isRequestId(message.id) || 'result' in message || 'error' in message)
    return undefined;
  const params = message.params;
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  if (!isObject(meta)) return undefined;
  const token = meta.progressToken;
  if (token !== undefined && !isRequestId(token)) return undefined;
  const reserved: unknown[] = [];
  for (const [k, v] of Object.entries(meta)) if (k.startsWith(RESERVED_META_PREFIX)) reserved.push(k, v);
  return JSON.stringify([message.method, versionHeader, methodHeader, reserved]);
}

/** One HTTP exchange a reused server is answering. */
interface Exchange {
  id: RequestId;
  res: ServerResponse;
  /** True while the request is being handed to the server: an error then is the SDK's gate, not a handler's. */
  dispatching: boolean;
  /** Set once a message other than the answer went out: the answer is then the stream's last event. */
  stream?: { keepAlive: NodeJS.Timeout | undefined };
  /** Told once the answer is written (true: the server may serve another) or the exchange is abandoned. */
  ended: (reusable: boolean) => void;
}

/**
 * The HTTP statuses of the JSON-RPC errors the SDK's gates answer before a handler runs, as its
 * per-request transport gives them (its `LADDER_ERROR_HTTP_STATUS`, not exported); any other
 * error is the answer's payload, status 200. -32020 is the header-mismatch error (SEP-2243).
 */
const GATE_ERROR_STATUS: Readonly<Record<number, number>> = {
  [ProtocolErrorCode.ParseError]: 400,
  [ProtocolErrorCode.InvalidRequest]: 400,
  [ProtocolErrorCode.MethodNotFound]: 404,
  [ProtocolErrorCode.UnsupportedProtocolVersion]: 400,
  [ProtocolErrorCode.MissingRequiredClientCapability]: 400,
  [-32020]: 400,
};

/** How often an open event stream gets a comment, so that proxies keep it (the SDK's interval). */
const KEEP_ALIVE_MS = 15_000;

const STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * A server's connection that carries one HTTP exchange at a time, for as long as the server is
 * reused. It is the SDK's per-request transport by kind (connecting a server to one binds the
 * server to the revision it names: the SDK's public way to serve 2026-07-28), and writes to
 * Node's response itself, the answer as one JSON body, or as an event stream once a message
 * related to the request (a progress or log notification) goes out before it: the shapes and
 * statuses the SDK's per-request transport gives, without a web `Request`, `Response` or stream.
 */
class ExchangeTransport extends PerRequestHTTPServerTransport {
  private exchange: Exchange | undefined;

  constructor(revision: string) {
    super({ classification: { era: 'modern', revision } });
  }

  override async start(): Promise<void> {}

  /** Hands the request to the server; its answer comes back through send. */
  serve(exchange: Exchange, message: JSONRPCRequest, extra: MessageExtraInfo): void {
    this.exchange = exchange;
    exchange.dispatching = true;
    try {
      this.onmessage?.(message, extra);
    } finally {
      exchange.dispatching = false;
    }
  }

  override handleMessage(): Promise<Response> {
    return Promise.reject(new Error('A reused server is given its requests with serve()'));
  }

  // The server's own messages, well formed by construction: told apart by shape, not re-validated.
  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const exchange = this.exchange;
    if (!exchange) return;
    if ('id' in message && ('result' in message || 'error' in message)) {
      if (message.id !== exchange.id) return;
      this.exchange = undefined;
      answer(exchange, message);
      exchange.ended(true);
      return;
    }
    // 2026-07-28 has no server-to-client requests; a notification goes on its request's stream.
    if (options?.relatedRequestId !== exchange.id || 'id' in message) return;
    streamEvent(exchange, message);
  }

  override writeCommentFrame(comment: string): void {
    const exchange = this.exchange;
    if (exchange?.stream) exchange.res.write(`: ${comment.split('\n').join('\n: ')}\n\n`);
  }

  /** The client left (or the host is closing): the request's handler is aborted, the server not reused. */
  override async close(): Promise<void> {
    const exchange = this.exchange;
    this.exchange = undefined;
    if (exchange) {
      clearInterval(exchange.stream?.keepAlive);
      // As the SDK's entry answers an exchange closed before its answer: 499, or the stream ended.
      const { res } = exchange;
      if (!res.headersSent) res.writeHead(499).end();
      else if (!res.writableEnded) res.end();
      exchange.ended(false);
    }
    this.onclose?.();
  }
}

/** The answer: the last event of an open stream, else one JSON body with the gate's status if any. */
function answer(exchange: Exchange, message: JSONRPCMessage): void {
  const body = JSON.stringify(message);
  const { res } = exchange;
  if (exchange.stream) {
    clearInterval(exchange.stream.keepAlive);
    res.end(`event: message\ndata: ${body}\n\n`);
    return;
  }
  const code = 'error' in message ? message.error.code : undefined;
  const status =
    code === undefined
      ? 200
      : code === ProtocolErrorCode.MissingRequiredClientCapability
        ? 400
        : exchange.dispatching
          ? (GATE_ERROR_STATUS[code] ?? 200)
          : 200;
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
}

/** A message before the answer: the exchange becomes an event stream (headers out at once). */
function streamEvent(exchange: Exchange, message: JSONRPCMessage): void {
  const { res } = exchange;
  if (!exchange.stream) {
    res.writeHead(200, STREAM_HEADERS);
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    exchange.stream = { keepAlive };
  }
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

interface Connected {
  server: Server;
  transport: ExchangeTransport;
}

/**
 * MCP servers reused across 2026-07-28 requests, one request at a time each: a request takes an
 * idle server (or a new one) and gives it back once answered. Every request of this revision
 * stands alone, so one server serves any user's (each request names its user in `authInfo`, its
 * client in its envelope; see createMcpServer's `userPerRequest`); nothing is kept per request.
 * The SDK's entry builds a server, a transport, a web `Request` and `Response` per request,
 * which is most of a call's serving cost: the one reason this exists.
 */
export class ReusedServers {
  private readonly idle = new Map<string, Connected[]>();
  private readonly busy = new Set<Connected>();
  private closed = false;

  constructor(
    /** A server for any user's requests, not yet connected. */
    private readonly createServer: () => Server,
  ) {}

  /** Answers the request on `res`; resolves once the answer is written or the client has left. */
  async serve(res: ServerResponse, request: ReusableRequest, extra: MessageExtraInfo): Promise<void> {
    const connected = this.idle.get(request.revision)?.pop() ?? (await this.connect(request.revision));
    this.busy.add(connected);
    await new Promise<void>((resolve) => {
      const exchange: Exchange = {
        id: request.message.id,
        res,
        dispatching: false,
        ended: (reusable) => {
          this.busy.delete(connected);
          this.release(connected, request.revision, reusable);
          resolve();
        },
      };
      // The client leaving cancels the request (2026-07-28 cancels by closing the stream).
      res.once('close', () => {
        if (!res.writableFinished) void connected.transport.close();
      });
      connected.transport.serve(exchange, request.message, extra);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.busy, ...[...this.idle.values()].flat()];
    this.idle.clear();
    await Promise.all(all.map((c) => c.server.close().catch(() => {})));
  }

  private async connect(revision: string): Promise<Connected> {
    const server = this.createServer();
    const transport = new ExchangeTransport(revision);
    await server.connect(transport);
    return { server, transport };
  }

  private release(connected: Connected, revision: string, reusable: boolean): void {
    let idle = this.idle.get(revision);
    if (!idle) {
      idle = [];
      this.idle.set(revision, idle);
    }
    if (reusable && !this.closed && idle.length < MAX_IDLE) idle.push(connected);
    else if (reusable) void connected.server.close().catch(() => {});
  }
}
