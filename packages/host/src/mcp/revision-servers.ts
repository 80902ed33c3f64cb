import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  PerRequestHTTPServerTransport,
  type RequestId,
  type Server,
  type TransportSendOptions,
} from './sdk.js';

/**
 * The revision servers: one MCP server per modern revision, answering the requests clients
 * send again and again (REVISION_SERVER_METHODS) on both transports, any number at once.
 *
 * Why it replaces part of the SDK: the SDK's entries build a server, a transport (and over
 * HTTP a web `Request` and `Response`) per request, or hand each message of a stdio connection
 * through a queue and a channel that check it with zod again. On the bench (packages/bench/RUNS.md,
 * "The two protocol eras"), a 2026-07-28 call over HTTP cost 2,400 to 2,500 µs of server CPU
 * through the SDK's entry against 1,300 to 1,500 here, and over stdio a fifth more than a
 * session-era call. What would retire it: an SDK entry that keeps one server per revision and
 * accepts a parsed body without a web `Request` (or a bench where the entry's cost per call is
 * within the run's spread of this).
 */

/** Where one request's messages go, as its transport delivers them (an HTTP response, the stdio pipe). */
export interface Delivery {
  /** The answer, under the client's id. `atGate`: refused by the SDK's checks before any handler ran. */
  answer(message: JSONRPCMessage, atGate: boolean): void | Promise<void>;
  /** A message related to the request before its answer (progress, a log line). */
  notify(message: JSONRPCMessage): void | Promise<void>;
  /** Given up before its answer: the client left, or the connection closed. */
  end(): void;
  /** A comment for an open event stream (keep-alive); none where there is no stream. */
  comment?(text: string): void;
}

interface Open {
  /** The id the client gave its request, restored on the answer. */
  id: RequestId;
  delivery: Delivery;
}

/**
 * A server's connection that carries every request of one modern revision, concurrently. It is
 * the SDK's per-request transport by kind only: connecting a server to one binds the server to
 * the revision it names (the SDK's public way to serve a modern revision outside its entries).
 *
 * Clients number their requests each on their own, so two requests may carry the same id: each
 * is handed to the server under an id of this connection's (the server keeps a request's
 * handler, its abort and its notifications by id), and answered under the client's.
 */
export class RevisionConnection extends PerRequestHTTPServerTransport {
  private readonly open = new Map<number, Open>();
  private lastId = 0;
  /** The connection's id of the request being handed to the server: an answer then is the gate's. */
  private dispatching: number | undefined;

  constructor(
    readonly revision: string,
    /** Where a message related to no request goes (none on HTTP: 2026-07-28 has no such stream). */
    private readonly unrelated?: (message: JSONRPCMessage) => void | Promise<void>,
  ) {
    super({ classification: { era: 'modern', revision } });
  }

  override async start(): Promise<void> {}

  /** Hands the request to the server under an id of this connection's, returned; the answer goes to `delivery`. */
  serve(message: JSONRPCRequest, delivery: Delivery, extra?: MessageExtraInfo): number {
    this.lastId += 1;
    const id = this.lastId;
    this.open.set(id, { id: message.id, delivery });
    this.dispatching = id;
    try {
      this.onmessage?.({ ...message, id }, extra);
    } finally {
      this.dispatching = undefined;
    }
    return id;
  }

  /**
   * The request is given up before its answer (the client left, or cancelled it): its delivery
   * ends, and its handler is aborted the way a cancellation aborts one, by the server's own
   * handling of `notifications/cancelled`; the other requests go on.
   */
  abandon(id: number, reason = 'The client closed the request.'): void {
    const open = this.open.get(id);
    if (!open) return;
    this.open.delete(id);
    open.delivery.end();
    this.onmessage?.(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } },
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
      const open = typeof id === 'number' ? this.open.get(id) : undefined;
      if (!open) return;
      this.open.delete(id as number);
      return open.delivery.answer({ ...message, id: open.id }, this.dispatching === id);
    }
    // 2026-07-28 has no server-to-client requests; a notification goes with its request.
    const related = options?.relatedRequestId;
    const open = typeof related === 'number' ? this.open.get(related) : undefined;
    if (open && !('id' in message)) return open.delivery.notify(message);
    if (related === undefined) return this.unrelated?.(message);
  }

  override writeCommentFrame(comment: string): void {
    for (const { delivery } of this.open.values()) delivery.comment?.(comment);
  }

  /** The host is closing: every request still open ends, and the server aborts their handlers. */
  override async close(): Promise<void> {
    const open = [...this.open.values()];
    this.open.clear();
    for (const { delivery } of open) delivery.end();
    this.onclose?.();
  }
}

interface Connected {
  server: Server;
  connection: RevisionConnection;
}

/**
 * The revision servers of a transport: one per revision, connected on its first request. Every
 * modern request stands alone, so one server serves any user's (each request names its user in
 * `authInfo`, its client in its envelope; see createMcpServer's `userPerRequest`).
 */
export class RevisionServers {
  private readonly servers = new Map<string, Promise<Connected>>();
  private closed = false;

  constructor(
    /** A server bound to no revision yet, accepting the revisions served (REVISION_SERVER_VERSIONS). */
    private readonly createServer: () => Server,
    /** Where a message related to no request goes (see RevisionConnection). */
    private readonly unrelated?: (message: JSONRPCMessage) => void | Promise<void>,
  ) {}

  /** The connection of the revision's server, connecting one on the first request. */
  connectionFor(revision: string): Promise<RevisionConnection> {
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
    return connected.then((c) => c.connection);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((connected) => connected.then(({ server }) => server.close()).catch(() => {})));
  }

  private async connect(revision: string): Promise<Connected> {
    const server = this.createServer();
    const connection = new RevisionConnection(revision, this.unrelated);
    await server.connect(connection);
    // Closed other than by close() (a failure of its own): the next request connects another.
    const own = this.servers.get(revision);
    const closed = connection.onclose;
    connection.onclose = () => {
      if (this.servers.get(revision) === own) this.servers.delete(revision);
      closed?.();
    };
    return { server, connection };
  }
}
