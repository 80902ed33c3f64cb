import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  modernRevisionOf,
  REVISION_SERVER_METHODS,
  REVISION_SERVER_REVISIONS,
} from '../mcp/protocol-eras.js';
import {
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
  if (req.method !== 'POST' || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return undefined;
  const method = (parsed as { method?: unknown }).method;
  if (typeof method !== 'string' || !REVISION_SERVER_METHODS.has(method)) return undefined;
  const contentType = firstHeader(req, 'content-type');
  const protocolVersionHeader = firstHeader(req, 'mcp-protocol-version');
  const mcpMethodHeader = firstHeader(req, 'mcp-method');
  const mcpNameHeader = firstHeader(req, 'mcp-name');
  if (!isJsonContentType(contentType ?? null) || !protocolVersionHeader || !mcpMethodHeader) return undefined;
  const revision = modernRevisionOf(
    parsed as Record<string, unknown>,
    protocolVersionHeader,
    mcpMethodHeader,
  );
  if (revision === undefined || !REVISION_SERVER_REVISIONS.includes(revision)) return undefined;
  if (method === 'tools/call') {
    const name = ((parsed as { params?: unknown }).params as { name?: unknown } | undefined)?.name;
    const named = mcpNameHeader === undefined ? undefined : stripSpaces(mcpNameHeader);
    if (typeof name !== 'string' || named !== name || named.startsWith(ENCODED_NAME_PREFIX)) return undefined;
  }
  return { message: parsed as JSONRPCRequest, revision };
}

/** One HTTP exchange a revision server is answering. */
interface Exchange {
  /** The id the client gave its request, restored on the answer. */
  id: RequestId;
  res: ServerResponse;
  /** True while the request is being handed to the server: an error then is the SDK's gate, not a handler's. */
  dispatching: boolean;
  /** Set once a message other than the answer went out: the answer is then the stream's last event. */
  stream?: { keepAlive: NodeJS.Timeout | undefined };
  /** Told once the answer is written or the exchange is given up. */
  ended: () => void;
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
 * A server's connection that carries every 2026-07-28 exchange of one revision, concurrently.
 * It is the SDK's per-request transport by kind (connecting a server to one binds the server to
 * the revision it names: the SDK's public way to serve 2026-07-28), and writes to Node's
 * response itself, the answer as one JSON body, or as an event stream once a message related to
 * the request (a progress or log notification) goes out before it: the shapes and statuses the
 * SDK's per-request transport gives, without a web `Request`, `Response` or stream.
 *
 * Clients number their requests each on their own, so two exchanges may carry the same id: each
 * is handed to the server under an id of this connection's (the server keeps a request's
 * handler, its abort and its notifications by id), and answered under the client's.
 */
class ExchangeTransport extends PerRequestHTTPServerTransport {
  private readonly exchanges = new Map<number, Exchange>();
  private lastId = 0;

  constructor(private readonly revision: string) {
    super({ classification: { era: 'modern', revision } });
  }

  override async start(): Promise<void> {}

  /** Hands the request to the server under an id of this connection's, returned; the answer comes back through send. */
  serve(exchange: Exchange, message: JSONRPCRequest, extra: MessageExtraInfo): number {
    this.lastId += 1;
    const id = this.lastId;
    this.exchanges.set(id, exchange);
    exchange.dispatching = true;
    try {
      this.onmessage?.({ ...message, id }, extra);
    } finally {
      exchange.dispatching = false;
    }
    return id;
  }

  /**
   * The client left before its answer: the exchange ends (as the SDK's entry ends one closed
   * early) and its request's handler is aborted the way a cancellation aborts one, by the
   * server's own handling of `notifications/cancelled`; the other requests go on.
   */
  abandon(id: number): void {
    const exchange = this.exchanges.get(id);
    if (!exchange) return;
    this.exchanges.delete(id);
    endEarly(exchange);
    this.onmessage?.(
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: 'The client closed the request.' },
      },
      { classification: { era: 'modern', revision: this.revision } },
    );
  }

  override handleMessage(): Promise<Response> {
    return Promise.reject(new Error('A revision server is given its requests with serve()'));
  }

  // The server's own messages, well formed by construction: told apart by shape, not re-validated.
  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message)) {
      const id = message.id;
      const exchange = typeof id === 'number' ? this.exchanges.get(id) : undefined;
      if (!exchange) return;
      this.exchanges.delete(id as number);
      answer(exchange, { ...message, id: exchange.id });
      exchange.ended();
      return;
    }
    // 2026-07-28 has no server-to-client requests; a notification goes on its request's stream.
    const related = options?.relatedRequestId;
    const exchange = typeof related === 'number' ? this.exchanges.get(related) : undefined;
    if (!exchange || 'id' in message) return;
    streamEvent(exchange, message);
  }

  override writeCommentFrame(comment: string): void {
    for (const exchange of this.exchanges.values())
      if (exchange.stream) exchange.res.write(`: ${comment.split('\n').join('\n: ')}\n\n`);
  }

  /** The host is closing: every exchange still open ends, and the server aborts their handlers. */
  override async close(): Promise<void> {
    const open = [...this.exchanges.values()];
    this.exchanges.clear();
    for (const exchange of open) endEarly(exchange);
    this.onclose?.();
  }
}

/** An exchange given up before its answer: 499 if nothing was written yet, else its stream ended. */
function endEarly(exchange: Exchange): void {
  clearInterval(exchange.stream?.keepAlive);
  const { res } = exchange;
  if (!res.headersSent) res.writeHead(499).end();
  else if (!res.writableEnded) res.end();
  exchange.ended();
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
 * The MCP servers that answer 2026-07-28 requests: one per revision, connected on its first
 * request and answering any number at once, as one server answers a stdio connection. Every
 * request of this revision stands alone, so one server serves any user's (each request names
 * its user in `authInfo`, its client in its envelope; see createMcpServer's `userPerRequest`);
 * nothing is kept per request. The SDK's entry builds a server, a transport, a web `Request` and
 * `Response` per request, which is most of a call's serving cost: the one reason this exists.
 */
export class RevisionServers {
  private readonly servers = new Map<string, Promise<Connected>>();
  private closed = false;

  constructor(
    /** A server for any user's requests, not yet connected. */
    private readonly createServer: () => Server,
  ) {}

  /** Answers the request on `res`; resolves once the answer is written or the client has left. */
  async serve(res: ServerResponse, request: RevisionRequest, extra: MessageExtraInfo): Promise<void> {
    const { transport } = await this.serverFor(request.revision);
    await new Promise<void>((resolve) => {
      const exchange: Exchange = { id: request.message.id, res, dispatching: false, ended: resolve };
      const id = transport.serve(exchange, request.message, extra);
      // The client leaving cancels the request (2026-07-28 cancels by closing the stream).
      res.once('close', () => {
        if (!res.writableFinished) transport.abandon(id);
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((connected) => connected.then(({ server }) => server.close()).catch(() => {})));
  }

  private serverFor(revision: string): Promise<Connected> {
    let connected = this.servers.get(revision);
    if (!connected) {
      const connecting = this.connect(revision);
      // A server that failed to connect is not kept: the next request tries again.
      connecting.catch(() => {
        if (this.servers.get(revision) === connecting) this.servers.delete(revision);
      });
      if (!this.closed) this.servers.set(revision, connecting);
      connected = connecting;
    }
    return connected;
  }

  private async connect(revision: string): Promise<Connected> {
    const server = this.createServer();
    const transport = new ExchangeTransport(revision);
    await server.connect(transport);
    // Closed other than by close() (a failure of its own): the next request connects another.
    const own = this.servers.get(revision);
    const closed = transport.onclose;
    transport.onclose = () => {
      if (this.servers.get(revision) === own) this.servers.delete(revision);
      closed?.();
    };
    return { server, transport };
  }
}
