import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '@toolhost/authorization-server/http-body';
import { narrowingRequest } from '../mcp/catalog-views.js';
import {
  cancelledRequestOf,
  errorAnswer,
  inUse,
  isAnswer,
  isInitialize,
  isMessage,
  isRequest,
  type JsonRpcId,
  maxUnanswered,
  REQUEST_CANCELLED,
  requestIdsOf,
  tooMany,
  UNSUPPORTED_VERSION,
} from '../mcp/jsonrpc-messages.js';
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from '../mcp/sdk.js';
import type { ReplicaSessions } from '../replicas.js';
import { EventStream, onClientLeft } from './event-stream.js';
import { jsonRpcError, notAcceptable, postRefused, requestIdOf } from './request-guards.js';

/** The SDK's bound on a batch, kept so that a client sees the same limit from any MCP server. */
const MAX_BATCH = 100;
const SESSION_GONE = -32001;

/** Where the answers to one POST's requests go. */
interface Pending {
  /**
   * A message for the client ahead of the answers (a question to the person, progress);
   * false when it can no longer go here (the headers of a JSON answer are out).
   */
  push(message: JSONRPCMessage): boolean;
  /** One request's answer; the exchange ends once every request of the POST has one. */
  answer(id: JsonRpcId, message: JSONRPCMessage): void;
  /** The session closed first: every request still unanswered is told so. */
  abandon(): void;
}

/**
 * One POST that carries requests. Answered with one JSON body (an array for a batch) unless
 * the server has something to send before the answers, such as the confirmation question of
 * a write: then the response becomes an event stream, with that message and the answers as
 * events. The client accepts both (it must send `Accept: application/json, text/event-stream`),
 * so calls cost a stream only when they need one.
 */
class HttpExchange implements Pending {
  private readonly answers = new Map<JsonRpcId, JSONRPCMessage>();
  /** The response's form once its headers are out: events, or one JSON body sent later. */
  private form: 'undecided' | 'events' | 'json' = 'undecided';
  private events: EventStream | undefined;

  /**
   * `direct`: the POST is one request for which the server will send nothing before its
   * answer, which may take a while (a tool call waits on the token store, a pacer, the
   * upstream). The headers of its JSON answer then go at once, so that the client takes in
   * the response while the call runs rather than after. Should the server send something for
   * it all the same, that goes on the session's GET stream (see `send`). The status is 200
   * whatever the call's outcome, as for every JSON-RPC answer; the body follows, chunked, with
   * the answer.
   */
  constructor(
    private readonly ids: readonly JsonRpcId[],
    private readonly batch: boolean,
    private readonly res: ServerResponse,
    private readonly sessionId: string,
    direct: boolean,
  ) {
    if (!direct) return;
    this.form = 'json';
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId });
    res.flushHeaders();
  }

  push(message: JSONRPCMessage): boolean {
    if (this.form === 'json') return false;
    this.stream()?.write(message);
    return true;
  }

  answer(id: JsonRpcId, message: JSONRPCMessage): void {
    this.answers.set(id, message);
    this.events?.write(message);
    if (this.answers.size < this.ids.length) return;
    if (this.events) return void this.events.end();
    if (this.form === 'json') return void this.res.end(JSON.stringify(message));
    if (this.res.headersSent) return;
    writeJson(this.res, 200, this.batch ? this.ids.map((i) => this.answers.get(i)) : message, {
      'mcp-session-id': this.sessionId,
    });
  }

  abandon(): void {
    const message = 'The session was closed before this request was answered';
    const open = this.ids.filter((id) => !this.answers.has(id));
    // A single request, unanswered: its headers went already, so the error is the body.
    if (this.form === 'json')
      return void this.res.end(JSON.stringify(errorAnswer(this.ids[0]!, SESSION_GONE, message)));
    if (this.form === 'undecided')
      return void jsonRpcError(this.res, 404, message, { code: SESSION_GONE, id: open[0] ?? null });
    for (const id of open) this.events?.write(errorAnswer(id, SESSION_GONE, message));
    this.events?.end();
  }

  /** The event stream the answers go on, opened on the first message ahead of them. */
  private stream(): EventStream | undefined {
    if (this.form !== 'undecided' || this.res.headersSent) return this.events;
    this.form = 'events';
    this.events = new EventStream(this.res, { 'mcp-session-id': this.sessionId });
    for (const answer of this.answers.values()) this.events.write(answer);
    return this.events;
  }
}

/** A request whose client left: nothing more goes to its POST (the rest goes on the GET stream). */
const LEFT: Pending = { push: () => false, answer: () => {}, abandon: () => {} };

export interface SessionTransportOptions {
  sessionId: string;
  /** The engine's upstream requests at once: those the client may leave unanswered follow it (`maxUnanswered`). */
  maxConcurrentRequests: number;
  /** Told once the server accepted the client's initialize, before the client learns the id: the session is made then, or refused. */
  onInitialized?: () => Promise<{ status: number; message: string } | undefined>;
  /**
   * Whether the server will send the client nothing about this request before its answer,
   * which may take a while (a tool call waiting on its upstream). The headers of such a
   * request's JSON answer go as soon as it arrives (see HttpExchange's `direct`).
   */
  answersDirectly?: (request: JSONRPCRequest) => boolean;
  /**
   * The session beyond this replica, told before the client is answered, once this transport
   * accepts: a DELETE (the session ends everywhere: its next request, on any replica, must not
   * find it), a POST's messages, before the server has them (a level set holds on every replica).
   */
  shared?: Pick<ReplicaSessions, 'remove' | 'shareLogLevel'>;
}

/**
 * The server side of one Streamable HTTP session, on Node's `http` objects.
 *
 * Written here rather than using the SDK's session transport, which turns every Node request into a
 * web `Request` and its answer back from a web `Response` and parses each message with zod. The bench
 * row that justifies it (`pnpm bench --session-transport`, the same host's MCP server behind each
 * transport, server CPU per tools/call at c=64, 4 runs on 2026-11-29): the v2 SDK's
 * `NodeStreamableHTTPServerTransport` (@modelcontextprotocol/node 2.1.2 over server 2.4.0) cost 36%
 * more than this one with JSON answers and 29% more in its default event-stream mode, each run 22 to
 * 55% more, outside the ±9% run-to-run spread (packages/bench/RUNS.md, "The session transport against
 * the v2 SDK's"). What would retire this: that row reading the SDK's within the spread of this one,
 * and the SDK resuming a session another replica opened (`resume` below; the SDK's transport takes a
 * session id only from an initialize request it handles itself). This one answers the same protocol
 * (MCP 2025-03-26 and later): POST with JSON or event-stream answers, the GET event stream for
 * messages of no request, DELETE to end the session, the same status codes for refused requests; it
 * also answers a request the client cancelled (the SDK leaves its POST open), and every request still
 * open when the session closes. No event store: like the SDK without one, streams are not resumable.
 */
export class SessionTransport implements Transport {
  readonly sessionId: string;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private readonly pending = new Map<JsonRpcId, Pending>();
  private standalone: EventStream | undefined;
  private readonly unsent: JSONRPCMessage[] = [];
  private initialized = false;
  private closed = false;
  constructor(private readonly options: SessionTransportOptions) {
    this.sessionId = options.sessionId;
  }

  async start(): Promise<void> {}

  /** Whether the client's GET event stream is open here (messages of no request reach it). */
  get streaming(): boolean {
    return this.standalone !== undefined;
  }

  /** Writes a message of no request on the open event stream: false, written nowhere, where none is. */
  sendOnStream(message: JSONRPCMessage): boolean {
    return this.standalone?.write(message) ?? false;
  }

  /** Requests not answered yet (of open POSTs, or of POSTs their client left). */
  get openRequests(): number {
    return this.pending.size;
  }

  /** One HTTP request of this session; `parsed` is the POST body, already read and parsed. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, parsed?: unknown): Promise<void> {
    if (this.closed) return jsonRpcError(res, 404, 'Session not found', { code: SESSION_GONE });
    switch (req.method) {
      case 'POST':
        return this.post(req, res, parsed);
      case 'GET':
        return this.openStream(req, res);
      case 'DELETE':
        if (!this.sessionChecked(req, res)) return;
        // The end it announces may come back and close this transport first (a replica hears
        // its own broadcast): the client's DELETE is still the one that ended it.
        await this.options.shared?.remove(this.sessionId);
        await this.close();
        res.writeHead(200).end();
        return;
      default:
        jsonRpcError(res, 405, 'Method not allowed', { headers: { allow: 'GET, POST, DELETE' } });
    }
  }

  /**
   * Rebuilds a session another replica opened: the client's initialize request reaches the
   * server as it once did there (its answer was given then, so it goes nowhere), then its
   * `initialized` notification and the `settings` it made since (their answers go nowhere, under
   * ids of the shared store's). True when the server accepted it.
   */
  async resume(initialize: unknown, settings: unknown[] = []): Promise<boolean> {
    if (this.initialized || !isInitialize(initialize)) return false;
    this.initialized = true;
    const answer = await new Promise<JSONRPCMessage>((resolve) => {
      this.pending.set(initialize.id, {
        push: () => true,
        answer: (_id, message) => resolve(message),
        abandon: () => resolve(errorAnswer(initialize.id, SESSION_GONE, 'closed')),
      });
      this.onmessage?.(initialize as JSONRPCMessage);
    });
    if (!('result' in answer)) return false;
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const setting of settings) this.onmessage?.(setting as JSONRPCMessage);
    return true;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isAnswer(message)) {
      // No entry: a cancelled request, answered already.
      const pending = this.pending.get(message.id);
      this.pending.delete(message.id);
      pending?.answer(message.id, message);
      return;
    }
    const related = options?.relatedRequestId;
    const pending = related === undefined ? undefined : this.pending.get(related);
    // A request whose JSON answer is under way, or whose client left, takes nothing more: its message goes on
    // the GET stream, or nowhere; one of no request (a sign-in's completion), with the stream down as its
    // client opens it again, waits for the next (the last 16 do; with no event store, the SDK drops them).
    if (pending?.push(message) || this.sendOnStream(message) || related !== undefined) return;
    if (this.unsent.push(message) > 16) this.unsent.shift();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = new Set(this.pending.values());
    this.pending.clear();
    for (const pending of open) pending.abandon();
    this.standalone?.end();
    this.standalone = undefined;
    this.onclose?.();
  }

  private async post(req: IncomingMessage, res: ServerResponse, parsed: unknown): Promise<void> {
    // A refusal names the request it refuses, so that the client can tell which call failed.
    const id = requestIdOf(parsed);
    if (postRefused(req, res, id)) return;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    if (messages.length === 0 || messages.length > MAX_BATCH || !messages.every(isMessage)) {
      const why =
        messages.length > MAX_BATCH
          ? `a batch holds at most ${MAX_BATCH} messages`
          : 'the body is not a JSON-RPC 2.0 message or a non-empty batch of them';
      jsonRpcError(res, 400, `Invalid Request: ${why}`, { code: -32600 });
      return;
    }
    if (!this.accepted(req, res, messages, id)) return;
    const ids = requestIdsOf(parsed);
    const reused = ids.find((id) => this.pending.has(id));
    if (reused !== undefined || new Set(ids).size < ids.length)
      return void jsonRpcError(res, 400, inUse(reused ?? ids[0]), { code: -32600 });
    // Requests whose client left count too: their calls run on, and hanging up again and again piled them up.
    const max = maxUnanswered(this.options.maxConcurrentRequests);
    if (this.pending.size + ids.length > max)
      return void jsonRpcError(res, 429, tooMany(max), { code: -32000, id });
    // The catalog narrowing headers (X-MCP-Toolsets …) travel with the messages to the handlers.
    const extra = narrowingRequest(req);
    if (ids.length === 0) res.writeHead(202).end();
    else {
      // Only a POST of one request can be answered directly: a batch's other requests might
      // still ask the client something.
      const direct = isRequest(parsed) && this.options.answersDirectly?.(parsed as JSONRPCRequest) === true;
      const exchange = new HttpExchange(ids, Array.isArray(parsed), res, this.sessionId, direct);
      for (const id of ids)
        this.pending.set(id, isInitialize(parsed) ? this.handshake(exchange, res) : exchange);
      // The client left before its answers: each is dropped when it comes, its id held till then,
      // or a request sent again under that id would be given the answer of the one left.
      onClientLeft(res, () => {
        for (const id of ids) if (this.pending.get(id) === exchange) this.pending.set(id, LEFT);
      });
    }
    await this.options.shared?.shareLogLevel(this.sessionId, messages).catch(() => {});
    // Closed meanwhile, its requests answered so: none of them may run; nor one a cancellation
    // (relayed, or looped back through Redis) answered meanwhile, or it would run once the client
    // was told it did not, and its id, free again, would take another request's answer.
    if (this.closed) return;
    for (const m of messages) if (!isRequest(m) || this.pending.has(m.id)) this.deliver(m, extra);
  }

  /** Whether the POST's messages may go to the server now: the handshake, or a request of an initialized session. */
  private accepted(
    req: IncomingMessage,
    res: ServerResponse,
    messages: unknown[],
    id: JsonRpcId | null,
  ): boolean {
    if (!messages.some(isInitialize)) return this.sessionChecked(req, res, id);
    if (this.initialized || messages.length > 1) {
      const why = this.initialized ? 'the session is already initialized' : 'initialize must be sent alone';
      jsonRpcError(res, 400, `Invalid Request: ${why}`, { code: -32600, id });
      return false;
    }
    this.initialized = true;
    return true;
  }

  /** The checks of every request after the handshake: initialized, this session, a known protocol version. */
  private sessionChecked(req: IncomingMessage, res: ServerResponse, id: JsonRpcId | null = null): boolean {
    if (!this.initialized) {
      jsonRpcError(res, 400, 'Bad Request: the session is not initialized', { id });
      return false;
    }
    if (req.headers['mcp-session-id'] !== this.sessionId) {
      jsonRpcError(res, 404, 'Session not found', { code: SESSION_GONE, id });
      return false;
    }
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      jsonRpcError(
        res,
        400,
        `Bad Request: unsupported protocol version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        {
          code: UNSUPPORTED_VERSION,
          id,
          data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested: version },
        },
      );
      return false;
    }
    return true;
  }

  /** The initialize's answer makes the session: one the server refuses gets no id and closes this transport. */
  private handshake(exchange: HttpExchange, res: ServerResponse): Pending {
    return {
      push: () => false,
      abandon: () => exchange.abandon(),
      answer: async (id, answer) => {
        const opened = 'result' in answer;
        const refused = opened ? await this.options.onInitialized?.() : undefined;
        if (refused) jsonRpcError(res, refused.status, refused.message, { id });
        else if (opened) exchange.answer(id, answer);
        else writeJson(res, 200, answer);
        if (!opened || refused) void this.close();
      },
    };
  }

  /** A message of the client's to the server: a POST's, or one relayed by another replica. */
  deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
    // The server ends a cancelled request's handler without answering it (right for stdio,
    // where nothing waits); here its POST would stay open until the client gave up.
    const cancelled = cancelledRequestOf(message);
    if (cancelled !== undefined && this.pending.has(cancelled))
      void this.send(errorAnswer(cancelled, REQUEST_CANCELLED, 'Request cancelled'));
  }

  /** GET: the session's event stream, for messages that belong to no request. */
  private openStream(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream'))
      return void notAcceptable(res, 'text/event-stream');
    if (!this.sessionChecked(req, res)) return;
    if (this.standalone)
      return void jsonRpcError(res, 409, 'Conflict: this session already has an event stream open');
    if (res.closed) return;
    const stream = new EventStream(res, { 'mcp-session-id': this.sessionId });
    this.standalone = stream;
    for (const message of this.unsent.splice(0)) stream.write(message);
    onClientLeft(res, () => {
      if (this.standalone === stream) this.standalone = undefined;
    });
  }
}
