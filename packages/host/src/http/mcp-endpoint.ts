import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '@toolhost/authorization-server/http-body';
import { type BrowserSignIn, PENDING_TTL_MS } from '@toolhost/credentials';
import type { Caller, DoorRefusal, FrontDoor } from '@toolhost/front-door/front-door';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { HostScope } from '../auth/front-door/scopes.js';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';
import { type Narrowing, requestNarrowing, unknownToolSets } from '../mcp/catalog-views.js';
import { answersDirectly } from '../mcp/confirm-elicitation.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { cancelledRequestOf, forRunningRequests, isInitialize } from '../mcp/jsonrpc-messages.js';
import { answersTooDeep } from '../mcp/request-params.js';
import type { JSONRPCMessage } from '../mcp/sdk.js';
import type { McpServingState } from '../mcp/serving-state.js';
import { completionToThisServer } from '../mcp/tool-calls.js';
import type { AuditEntry } from '../observability/audit-log.js';
import type { ReplicaSessions } from '../replicas.js';
import { scopeForMessage, type ToolLookup } from './call-scope.js';
import type { HttpSession, HttpSessions } from './http-sessions.js';
import { oversizedInitialize } from './initialize-bound.js';
import { isLegacyHttpRequest, type ModernRequests } from './modern-requests.js';
import { type JsonRpcId, jsonRpcError, originAllowed, postRefused, requestIdOf } from './request-guards.js';
import { SessionTransport } from './session-transport.js';
import { deliverStored } from './stored-notices.js';

export interface McpEndpointOptions {
  host: Host;
  mcpState: McpServingState;
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
  shared?: ReplicaSessions;
  /** MCP 2026-07-28 requests, each served on its own (no session). */
  modern: ModernRequests;
  /** The OAuth front door, once the server listens (its resource URL follows the port). */
  frontDoor?: () => FrontDoor<HostScope> | undefined;
  /** A plugin tool by the name a client calls it, for the scope a call needs. */
  toolLookup?: ToolLookup;
}

/**
 * The MCP path of the HTTP host: who is asking (checked before the body is read), the JSON-RPC
 * message, then its era. A 2026-07-28 request is answered on its own, by a server made for it;
 * a request of the session era goes to the session it belongs to, or opens one. Each session
 * has its own MCP server and transport, never shared between clients (sharing one leaked
 * responses across clients, CVE-2026-25536).
 */
export class McpEndpoint {
  /** Sessions being rebuilt from the shared store, so that concurrent requests rebuild one. */
  private readonly restoring = new Map<string, Promise<HttpSession | Refusal | undefined>>();

  constructor(private readonly o: McpEndpointOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!ENDPOINT_METHODS.has(req.method ?? '')) {
      req.resume();
      return jsonRpcError(res, 405, 'Method not allowed', { headers: { allow: 'GET, POST, DELETE' } });
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.o.allowedOrigins as Set<string>)) {
      return jsonRpcError(res, 403, `Origin ${origin} is not allowed`);
    }
    const caller = await this.authenticate(req, res);
    if (caller === undefined) return;
    const userId = caller.userId;
    const message = await this.readMessage(req, res);
    if (!message) return;
    const { parsed } = message;
    const tooDeep = answersTooDeep(parsed);
    if (tooDeep) return jsonRpcError(res, 400, tooDeep, { code: -32600 });
    const id = requestIdOf(parsed);
    // Before any session opens: the client learns of the misspelt header at its first request.
    const unknownSets = unknownToolSets(req, this.o.mcpState.views.toolSets);
    if (unknownSets) return jsonRpcError(res, 400, unknownSets, { code: -32600, id });
    if ('scopes' in caller && this.refusedForScope(res, caller, parsed)) return;
    // Answers to the server's own requests (a confirmation) and cancellations serve calls already running.
    if (this.o.draining() && !forRunningRequests(parsed)) {
      return jsonRpcError(res, 503, 'The server is shutting down', { id, headers: { connection: 'close' } });
    }
    if (req.method === 'POST' && !isLegacyHttpRequest(req, parsed)) {
      this.o.exchanges.add(res);
      res.once('close', () => this.o.exchanges.delete(res));
      return this.o.modern.handle(req, res, url, parsed, userId);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') return this.toSession(req, res, sessionId, userId, parsed);
    if (req.method !== 'POST' || !isInitialize(parsed)) {
      return jsonRpcError(res, 400, 'Bad request: no valid session id, and not an initialize request', {
        id,
      });
    }
    return this.openSession(req, res, userId, parsed);
  }

  /** Who is asking, before anything of the request is read; undefined when refused (answered). */
  private async authenticate(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<Caller<HostScope> | { userId: string } | undefined> {
    const { host, accessTokens } = this.o;
    const door = this.o.frontDoor?.();
    if (door) {
      const admitted = await door.admit(req.headers.authorization, accessTokens);
      if ('userId' in admitted) return admitted;
      req.resume();
      this.refuse(res, admitted);
      return undefined;
    }
    if (!accessTokens.enabled) return { userId: host.config.defaultUserId };
    const user = accessTokens.userFor(req.headers.authorization);
    if (user) return { userId: user };
    req.resume();
    this.o.mcpState.audit?.record({ event: 'refusal', outcome: 'unauthenticated' });
    jsonRpcError(res, 401, 'Unauthorized: send Authorization: Bearer <access token>', {
      headers: { 'www-authenticate': 'Bearer' },
    });
    return undefined;
  }

  /** True when the token lacks the scope the message needs (answered 403, for step-up). */
  private refusedForScope(res: ServerResponse, caller: Caller<HostScope>, parsed: unknown): boolean {
    const door = this.o.frontDoor?.();
    const lookup = this.o.toolLookup;
    if (!door || !lookup) return false;
    const refusal = door.checkScope(caller, scopeForMessage(parsed, lookup));
    if (!refusal) return false;
    this.refuse(res, refusal, requestIdOf(parsed));
    return true;
  }

  /** A request refused at the front door: its challenge, and a line in the audit log. */
  private refuse(res: ServerResponse, refusal: DoorRefusal, id: JsonRpcId | null = null): void {
    this.o.mcpState.audit?.record({
      event: 'refusal',
      outcome: refusal.outcome,
      ...(refusal.user ? { user: refusal.user } : {}),
    });
    jsonRpcError(res, refusal.status, refusal.message, { headers: refusal.headers, id });
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
    const found = this.o.sessions.get(sessionId) ?? (await this.restore(sessionId, userId));
    // Another user's token cannot ride on a session, held here or rebuilt for its owner's request.
    const session = found && 'userId' in found && found.userId !== userId ? OTHER_USERS : found;
    if (!session) return jsonRpcError(res, 404, 'Session not found', { code: -32001, id });
    if ('status' in session) {
      // Redis away, the session held elsewhere: a cancellation (sent once) goes on once Redis answers.
      if (session === STORE_AWAY && this.o.shared?.relayLater(sessionId, userId, parsed))
        return void res.writeHead(202).end();
      if (session === OTHER_USERS) this.o.mcpState.audit?.record(otherUsersSession(userId));
      return jsonRpcError(res, session.status, session.message, { id });
    }
    session.lastSeen = Date.now();
    this.o.shared?.touch(sessionId);
    if (req.method === 'POST') this.track(res, session);
    const shared = this.o.shared;
    if (shared && req.method === 'POST' && forRunningRequests(parsed)) {
      // Only the replica that sent the request, or runs the call cancelled, knows its id: every
      // one holding the session gets the message (the others ignore an id they do not hold).
      const refused = await shared.relayAnswers(sessionId, userId, parsed).catch((e: Error) => e);
      if (!refused) return void res.writeHead(202).end();
      // Too large to relay (payload_too_large): the client's to make smaller, a retry fails again.
      if ((refused as { code?: string }).code === 'payload_too_large')
        return jsonRpcError(res, 413, refused.message);
      // Redis away: a cancellation (sent once, never answered) still reaches a call this replica runs.
      if (![parsed].flat().every((m) => cancelledRequestOf(m) !== undefined))
        return jsonRpcError(res, 503, STORE_AWAY.message);
    }
    await session.transport.handleRequest(req, res, parsed);
    if (req.method === 'GET' && shared && session.transport.streaming) void deliverStored(session, shared);
  }

  /** An initialize request: a new session with its own MCP server, within the session caps. */
  private async openSession(
    req: IncomingMessage,
    res: ServerResponse,
    userId: string,
    parsed: unknown,
  ): Promise<void> {
    const { sessions, accessTokens, shared } = this.o;
    const id = requestIdOf(parsed);
    if (postRefused(req, res, id)) return;
    const oversized = oversizedInitialize(parsed);
    if (oversized) return jsonRpcError(res, 413, oversized, { id });
    const clientName = (parsed as { params?: { clientInfo?: { name?: unknown } } }).params?.clientInfo?.name;
    // Without access tokens every local client is the same user; the client's name is what
    // tells them apart, so that one that never closes its sessions evicts only its own.
    const owner =
      accessTokens.enabled || this.o.frontDoor?.() ? userId : `${userId}\u0000${String(clientName)}`;
    const sessionId = randomUUID();
    // Recorded before the client learns the id (its next request may go to any replica), and before
    // room is made: an open the server or the store refuses closes no one's session at a cap.
    const session = await this.startSession(sessionId, userId, owner, requestNarrowing(req), async () => {
      const record = { userId, owner, initialize: parsed };
      const unsaved = await shared?.save(sessionId, record).catch(() => STORE_AWAY);
      if (unsaved) return unsaved;
      const refused = sessions.admit(owner);
      if (refused) {
        void shared?.remove(sessionId).catch(() => {});
        this.o.mcpState.audit?.record({
          event: 'refusal',
          outcome: 'too_many_sessions',
          user: userId,
          ...(typeof clientName === 'string' ? { client: clientName } : {}),
        });
        return refused;
      }
      sessions.add(session);
      this.o.logger?.info({ session: sessionId, user: userId }, 'session opened');
      return undefined;
    });
    this.track(res, session);
    await session.transport.handleRequest(req, res, parsed);
  }

  /**
   * A session's transport and MCP server, connected; `onInitialized` is told once the server
   * has accepted the client's initialize request, and may refuse the session still.
   */
  private async startSession(
    sessionId: string,
    userId: string,
    owner: string,
    narrowing?: Narrowing,
    onInitialized?: () => Promise<Refusal | undefined>,
  ): Promise<HttpSession> {
    const { host, mcpState, sessions, shared } = this.o;
    const transport = new SessionTransport({
      sessionId,
      maxConcurrentRequests: host.config.engine.maxConcurrentRequests,
      ...(onInitialized ? { onInitialized } : {}),
      answersDirectly: (request) => answersDirectly(server, host.config.tools?.confirmWrites, request),
      shared,
    });
    const server = createMcpServer(host, mcpState, {
      ...(narrowing ? { narrowing } : {}),
      ...this.o.serverInfo,
      userId,
      ...(shared
        ? {
            // Recorded in the shared store: the notice then outlives this replica. With the
            // store away, told here as in one process (the client's next call succeeds anyway).
            awaitCompletion: (elicitationId: string, signIn: BrowserSignIn, user: string) =>
              shared
                .expectCompletion(sessionId, elicitationId, PENDING_TTL_MS)
                .catch(() => completionToThisServer(server)(elicitationId, signIn, user)),
          }
        : {}),
    });
    const session: HttpSession = {
      id: sessionId,
      transport,
      server,
      userId,
      owner,
      lastSeen: Date.now(),
      open: new Set(),
    };
    transport.onclose = () => {
      if (sessions.get(sessionId) !== session) return;
      sessions.remove(sessionId);
      this.o.logger?.info({ session: sessionId, user: userId }, 'session closed');
    };
    await server.connect(transport);
    return session;
  }

  /**
   * A session this replica does not hold: another replica opened it (or this one closed its
   * copy when idle). Rebuilt from its record in the shared store; undefined when unknown.
   */
  private restore(sessionId: string, userId: string): Promise<HttpSession | Refusal | undefined> {
    const shared = this.o.shared;
    if (!shared) return Promise.resolve(undefined);
    // One rebuild per session and user: another user's request must neither share the owner's nor refuse it.
    const key = `${sessionId}\u0000${userId}`;
    const flight = this.restoring.get(key) ?? this.rebuild(shared, sessionId, userId);
    this.restoring.set(key, flight);
    return flight.finally(() => this.restoring.delete(key));
  }

  private async rebuild(
    shared: ReplicaSessions,
    sessionId: string,
    userId: string,
  ): Promise<HttpSession | Refusal | undefined> {
    const record = await shared.find(sessionId).catch(() => null);
    if (record === null) return STORE_AWAY;
    if (!record) return undefined;
    // Checked before anything is built: another user's token cannot even wake a session.
    if (record.userId !== userId) return OTHER_USERS;
    const refused = this.o.sessions.admit(record.owner);
    if (refused) return refused;
    const session = await this.startSession(sessionId, record.userId, record.owner);
    // The client's own handshake, replayed: the server learns its capabilities and version
    // through the same path as when the session was opened, then the level it set since.
    const resumed = await session.transport.resume(record.initialize, record.settings);
    if (resumed) this.o.sessions.add(session);
    // Ended on another replica while this one rebuilt it: the end's broadcast found nothing to
    // close here. The record goes before the broadcast, so once this copy is held, either the
    // record is still there (and the broadcast, still to come, closes it) or it is gone.
    // With Redis away (null), as if still there.
    const again = await shared.find(sessionId).catch(() => null);
    if (!resumed || again === undefined) {
      await session.server.close().catch(() => {});
      return undefined;
    }
    // A level set on another replica during the rebuild was relayed before this copy was held.
    const [before, now] = [record.settings, again?.settings].map((s) => JSON.stringify(s ?? []));
    if (now !== before) for (const s of again?.settings ?? []) session.transport.deliver(s as JSONRPCMessage);
    this.o.logger?.info({ session: sessionId, user: record.userId }, 'session resumed from the shared store');
    return session;
  }

  /** Tracks a POST's exchange until its answer is written (or the client leaves). */
  private track(res: ServerResponse, session: HttpSession): void {
    this.o.exchanges.add(res);
    session.open.add(res);
    res.once('close', () => {
      this.o.exchanges.delete(res);
      session.open.delete(res);
      session.lastSeen = Date.now();
    });
  }
}

/** The HTTP methods of the MCP endpoint (Streamable HTTP); any other is answered 405. */
const ENDPOINT_METHODS = new Set(['GET', 'POST', 'DELETE']);

/** The audit line of a request that came with another user's session. */
const otherUsersSession = (user: string): AuditEntry => ({
  event: 'refusal',
  outcome: 'another_users_session',
  user,
});

/** A request refused with an HTTP status (a cap reached, the shared store away). */
type Refusal = { status: number; message: string };
const STORE_AWAY: Refusal = {
  status: 503,
  message: 'The shared session store (Redis) is unreachable; try again shortly',
};
const OTHER_USERS: Refusal = { status: 403, message: 'This session belongs to another user' };
