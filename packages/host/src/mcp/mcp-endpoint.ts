import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { Host } from '../host.js';
import type { Logger } from '../logger.js';
import { createMcpServer, type McpCatalog } from './create-mcp-server.js';
import type { HttpSession, HttpSessions } from './http-sessions.js';
import { sessionTransport } from './json-response-release.js';
import {
  BodyTooLarge,
  type JsonRpcId,
  jsonRpcError,
  originAllowed,
  readBody,
  requestIdOf,
} from './request-guards.js';
import { replayInitialize } from './session-replay.js';
import type { SessionRecord, SharedSessions } from './shared-sessions.js';

/** JSON-RPC has no code for a cancelled request; -32800 is LSP's RequestCancelled. */
const REQUEST_CANCELLED = -32800;

const isRequest = (m: unknown): m is { id: JsonRpcId; method: string } =>
  typeof m === 'object' && m !== null && 'method' in m && 'id' in m;

/** The request ids a notifications/cancelled message (alone or in a batch) names. */
function cancelledIds(body: unknown): JsonRpcId[] {
  const out: JsonRpcId[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    const msg = m as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | null;
    const id = msg?.params?.requestId;
    if (
      msg?.method === 'notifications/cancelled' &&
      msg.id === undefined &&
      (typeof id === 'string' || typeof id === 'number')
    )
      out.push(id);
  }
  return out;
}

export interface McpEndpointOptions {
  host: Host;
  catalog: McpCatalog;
  sessions: HttpSessions;
  accessTokens: AccessTokens;
  allowedOrigins: ReadonlySet<string>;
  maxBodyBytes: number;
  logger?: Logger;
  serverInfo?: { name: string; version: string };
  /** True once shutdown has begun: new requests are answered 503. */
  draining: () => boolean;
  /** POST exchanges whose answer is not yet written; shutdown waits for them. */
  exchanges: Set<ServerResponse>;
  /** Sessions shared by replicas (Redis), so that any replica serves any session. */
  shared?: SharedSessions;
}

/**
 * The MCP path of the HTTP host: who is asking (checked before the body is read), the JSON-RPC
 * message, then the session it belongs to or a new one. Each session has its own MCP server
 * and transport, never shared between clients (sharing one leaked responses across clients,
 * CVE-2026-25536).
 */
export class McpEndpoint {
  /** Sessions being rebuilt from the shared store, so that concurrent requests rebuild one. */
  private readonly restoring = new Map<string, Promise<HttpSession | Refusal | undefined>>();

  constructor(private readonly o: McpEndpointOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.o.allowedOrigins as Set<string>)) {
      return jsonRpcError(res, 403, `Origin ${origin} is not allowed`);
    }
    const userId = this.authenticate(req, res);
    if (userId === undefined) return;
    const message = await this.readMessage(req, res);
    if (!message) return;
    const { parsed } = message;
    const id = requestIdOf(parsed);
    if (this.o.draining()) {
      return jsonRpcError(res, 503, 'The server is shutting down', { id, headers: { connection: 'close' } });
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') return this.toSession(req, res, sessionId, userId, parsed);
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      return jsonRpcError(res, 400, 'Bad request: no valid session id, and not an initialize request', {
        id,
      });
    }
    return this.openSession(req, res, userId, parsed);
  }

  /** Who is asking, before anything of the request is read; undefined when refused (answered). */
  private authenticate(req: IncomingMessage, res: ServerResponse): string | undefined {
    const { host, accessTokens } = this.o;
    if (!accessTokens.enabled) return host.config.defaultUserId;
    const user = accessTokens.userFor(req.headers.authorization);
    if (user) return user;
    req.resume();
    jsonRpcError(res, 401, 'Unauthorized: send Authorization: Bearer <access token>', {
      headers: { 'www-authenticate': 'Bearer' },
    });
    return undefined;
  }

  /** The POST body as JSON (nothing for a GET or DELETE); undefined when refused (answered). */
  private async readMessage(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ parsed: unknown } | undefined> {
    if (req.method !== 'POST') return { parsed: undefined };
    let text: string;
    try {
      text = await readBody(req, this.o.maxBodyBytes);
    } catch (e) {
      const tooLarge = e instanceof BodyTooLarge;
      jsonRpcError(res, tooLarge ? 413 : 400, tooLarge ? 'Request body too large' : 'Bad request');
      return undefined;
    }
    try {
      return { parsed: JSON.parse(text) };
    } catch {
      jsonRpcError(res, 400, 'Parse error: the body is not JSON', { code: -32700 });
      return undefined;
    }
  }

  /** A request of an open session, which belongs to the user who opened it. */
  private async toSession(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    userId: string,
    parsed: unknown,
  ): Promise<void> {
    const id = requestIdOf(parsed);
    const found = this.o.sessions.get(sessionId) ?? (await this.restore(sessionId, userId, req));
    if (!found) return jsonRpcError(res, 404, 'Session not found', { code: -32001, id });
    if ('status' in found) return jsonRpcError(res, found.status, found.message, { id });
    const session = found;
    // Another user's token cannot ride on a session.
    if (session.userId !== userId)
      return jsonRpcError(res, 403, 'This session belongs to another user', { id });
    session.lastSeen = Date.now();
    this.o.shared?.touch(sessionId);
    if (req.method === 'POST') this.track(res, session, requestIdsOf(parsed), id);
    const shared = this.o.shared;
    if (shared && req.method === 'POST' && onlyAnswers(parsed)) {
      // Only the replica that sent the request knows its id: every one holding the session
      // gets the answer (the others' MCP servers ignore an id they never sent).
      const relayed = await shared.relayAnswers(sessionId, [parsed].flat()).then(
        () => true,
        () => false,
      );
      if (!relayed)
        return jsonRpcError(res, 503, 'The shared session store (Redis) is unreachable; try again shortly');
      res.writeHead(202).end();
      return;
    }
    // Ended everywhere before the client hears it is ended: its next request, on any
    // replica, must not find the session.
    if (req.method === 'DELETE') await this.o.shared?.remove(sessionId);
    await session.transport.handleRequest(req, res, parsed);
    if (req.method === 'POST') session.release?.();
    const cancelled = cancelledIds(parsed);
    if (cancelled.length > 0) await this.answerCancelled(session, cancelled);
  }

  /** An initialize request: a new session with its own MCP server, within the session caps. */
  private async openSession(
    req: IncomingMessage,
    res: ServerResponse,
    userId: string,
    parsed: { params: { clientInfo: { name: string }; capabilities?: { elicitation?: unknown } } },
  ): Promise<void> {
    const { sessions, accessTokens, shared } = this.o;
    const id = requestIdOf(parsed);
    // Without access tokens every local client is the same user; the client's name is what
    // tells them apart, so that one that never closes its sessions evicts only its own.
    const owner = accessTokens.enabled ? userId : `${userId}\u0000${parsed.params.clientInfo.name}`;
    const refused = sessions.admit(owner);
    if (refused) return jsonRpcError(res, refused.status, refused.message, { id });
    const sessionId = randomUUID();
    // Recorded before the client learns the id, so that its next request may go to any replica.
    const recorded = await shared?.save(sessionId, { userId, owner, initialize: parsed }).then(
      () => true,
      () => false,
    );
    if (recorded === false) {
      return jsonRpcError(res, 503, 'The shared session store (Redis) is unreachable; try again shortly', {
        id,
      });
    }
    const { transport, release } = await this.startSession(
      sessionId,
      userId,
      owner,
      this.asksPerson(parsed),
      (opened) => this.track(res, opened, requestIdsOf(parsed), id),
    );
    await transport.handleRequest(req, res, parsed);
    release?.();
  }

  /**
   * Whether calls of this session may ask the person (form elicitation to confirm a write):
   * the SDK drops such requests from JSON answers, so those sessions answer in SSE streams.
   */
  private asksPerson(initialize: unknown): boolean {
    const params = (initialize as { params?: { capabilities?: { elicitation?: unknown } } }).params;
    return Boolean(this.o.host.config.tools.confirmWrites && params?.capabilities?.elicitation);
  }

  /**
   * A session's transport and MCP server; the session is added to the open ones once the
   * transport has accepted its initialize request (`onOpened` is then told).
   */
  private async startSession(
    sessionId: string,
    userId: string,
    owner: string,
    asksPerson: boolean,
    onOpened: (session: HttpSession) => void,
  ): Promise<{ transport: StreamableHTTPServerTransport; release?: () => void }> {
    const { host, catalog, sessions } = this.o;
    const log = this.o.logger;
    let opened: HttpSession | undefined;
    // Answers are JSON bodies, with the SDK's per-request state released after each (see
    // json-response-release.ts); SSE streams only where that release is not possible.
    const { transport, release } = sessionTransport(
      {
        sessionIdGenerator: () => sessionId,
        onsessioninitialized: (sid) => {
          opened = {
            id: sid,
            transport,
            server,
            userId,
            owner,
            lastSeen: Date.now(),
            pending: new Set(),
            open: new Map(),
            release,
          };
          sessions.add(opened);
          onOpened(opened);
          log?.info({ session: sid, user: userId }, 'session opened');
        },
      },
      { stream: asksPerson },
    );
    const shared = this.o.shared;
    const server = createMcpServer(host, catalog, {
      ...this.o.serverInfo,
      userId,
      ...(shared
        ? {
            notifyCompletion: (elicitationId: string) =>
              void shared.notifyCompletion(sessionId, elicitationId),
          }
        : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId) {
        sessions.remove(transport.sessionId);
        log?.info({ session: transport.sessionId, user: userId }, 'session closed');
      }
      if (opened) this.answerOpen(opened);
    };
    await server.connect(transport);
    return { transport, ...(release ? { release } : {}) };
  }

  /**
   * A session this replica does not hold: another replica opened it (or this one closed its
   * copy when idle). Rebuilt from its record in the shared store; undefined when unknown.
   */
  private restore(
    sessionId: string,
    userId: string,
    req: IncomingMessage,
  ): Promise<HttpSession | Refusal | undefined> {
    const shared = this.o.shared;
    if (!shared) return Promise.resolve(undefined);
    let flight = this.restoring.get(sessionId);
    if (!flight) {
      flight = this.rebuild(shared, sessionId, userId, req).finally(() => this.restoring.delete(sessionId));
      this.restoring.set(sessionId, flight);
    }
    return flight;
  }

  private async rebuild(
    shared: SharedSessions,
    sessionId: string,
    userId: string,
    req: IncomingMessage,
  ): Promise<HttpSession | Refusal | undefined> {
    let record: SessionRecord | undefined;
    try {
      record = await shared.find(sessionId);
    } catch {
      return { status: 503, message: 'The shared session store (Redis) is unreachable; try again shortly' };
    }
    if (!record) return undefined;
    // Checked before anything is built: another user's token cannot even wake a session.
    if (record.userId !== userId) return { status: 403, message: 'This session belongs to another user' };
    const refused = this.o.sessions.admit(record.owner);
    if (refused) return refused;
    const { transport, release } = await this.startSession(
      sessionId,
      record.userId,
      record.owner,
      this.asksPerson(record.initialize),
      () => {},
    );
    const header = req.headers['mcp-protocol-version'];
    const version =
      typeof header === 'string'
        ? header
        : ((record.initialize as { params?: { protocolVersion?: string } }).params?.protocolVersion ?? '');
    const ready = await replayInitialize(
      transport,
      record.initialize,
      version,
      req.headers.host ?? 'localhost',
    );
    release?.();
    const session = this.o.sessions.get(sessionId);
    if (ready && session) {
      this.o.logger?.info(
        { session: sessionId, user: record.userId },
        'session resumed from the shared store',
      );
      return session;
    }
    await transport.close().catch(() => {});
    return undefined;
  }

  /** Tracks a POST's exchange until its answer is written (or the client leaves). */
  private track(res: ServerResponse, session: HttpSession, ids: JsonRpcId[], id: JsonRpcId | null): void {
    this.o.exchanges.add(res);
    session.open.set(res, id);
    for (const requestId of ids) session.pending.add(requestId);
    res.once('close', () => {
      this.o.exchanges.delete(res);
      session.open.delete(res);
      session.lastSeen = Date.now();
      for (const requestId of ids) session.pending.delete(requestId);
    });
  }

  /**
   * A session closed while requests were in progress (a DELETE, shutdown past its drain):
   * the SDK leaves a JSON-mode POST unanswered for ever, so answer what is still open.
   */
  private answerOpen(session: HttpSession): void {
    for (const [res, id] of session.open) {
      jsonRpcError(res, 404, 'The session was closed before this request was answered', { code: -32001, id });
    }
  }

  /**
   * The SDK ends a cancelled request's handler without answering it (right for stdio, where
   * nothing waits); over HTTP its POST would stay open until the client gave up. Answer it.
   */
  private async answerCancelled(session: HttpSession, ids: JsonRpcId[]): Promise<void> {
    for (const id of ids) {
      if (!session.pending.has(id)) continue;
      const message: JSONRPCMessage = {
        jsonrpc: '2.0',
        id,
        error: { code: REQUEST_CANCELLED, message: 'Request cancelled' },
      };
      // Fails harmlessly if the answer went out in the meantime.
      await session.transport.send(message).catch(() => {});
    }
  }
}

/** A request refused with an HTTP status (a cap reached, the shared store away). */
type Refusal = { status: number; message: string };

/** The ids of the requests (not notifications) in a message or batch. */
function requestIdsOf(parsed: unknown): JsonRpcId[] {
  return (Array.isArray(parsed) ? parsed : [parsed]).filter(isRequest).map((m) => m.id);
}

/** Whether a POST carries only JSON-RPC responses (answers to the server's requests). */
function onlyAnswers(parsed: unknown): boolean {
  const messages = [parsed].flat() as Record<string, unknown>[];
  return (
    messages.length > 0 &&
    messages.every(
      (m) =>
        typeof m === 'object' &&
        m !== null &&
        !('method' in m) &&
        'id' in m &&
        ('result' in m || 'error' in m),
    )
  );
}
