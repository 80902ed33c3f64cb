import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AccessTokens } from '../auth/access-tokens.js';
import { connectionsPage } from '../auth/connections-page.js';
import { oauthRoutes } from '../auth/oauth-routes.js';
import type { Host } from '../host.js';
import type { Logger } from '../logger.js';
import { createMcpServer, prepareMcpCatalog } from './create-mcp-server.js';
import { type HttpSession, HttpSessions } from './http-sessions.js';
import { sessionTransport } from './json-response-release.js';
import {
  BodyTooLarge,
  hostGuard,
  type JsonRpcId,
  jsonRpcError,
  LOOPBACK_HOSTS,
  originAllowed,
  readBody,
  requestIdOf,
} from './request-guards.js';

export interface HttpServeOptions {
  host?: string;
  port?: number;
  path?: string;
  /** Origins allowed besides loopback ones (DNS-rebinding protection). */
  allowedOrigins?: string[];
  /** Host header values allowed besides the bound address and the public URL's host. */
  allowedHosts?: string[];
  maxBodyBytes?: number;
  logger?: Logger;
  serverInfo?: { name: string; version: string };
  /** Operator-issued bearer tokens mapped to user ids; required to bind beyond loopback. */
  accessTokens?: AccessTokens;
  /** The URL browsers reach this server at, for OAuth redirect URIs (default: the bound address). */
  publicUrl?: string;
  /** false: serve only OAuth pages and health (the stdio mode's companion server). */
  mcp?: boolean;
  /** Open sessions per user (default 16; per user and client without access tokens) and in all (default 1000). */
  maxSessionsPerUser?: number;
  maxSessions?: number;
  /** Idle sessions are closed after this long (default 1800 s). */
  sessionIdleSeconds?: number;
  /** How long close() waits for answers still being written (default 5 s). */
  drainSeconds?: number;
}

export interface HttpServerHandle {
  url: string;
  port: number;
  /**
   * Stops taking requests (new ones are answered 503), waits for the answers of requests in
   * progress to be written (call `host.close()` first, so that every call has its answer),
   * then closes sessions and connections.
   */
  close(): Promise<void>;
}

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

/**
 * Streamable HTTP: a fresh MCP server and transport per session, never shared between
 * clients (sharing one leaked responses across clients, CVE-2026-25536).
 */
export async function serveHttp(host: Host, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const catalog = prepareMcpCatalog(host);
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const log = options.logger;
  const sessions = new HttpSessions(
    {
      maxPerOwner: options.maxSessionsPerUser ?? 16,
      max: options.maxSessions ?? 1000,
      idleMs: (options.sessionIdleSeconds ?? 1800) * 1000,
    },
    log,
  );
  const accessTokens = options.accessTokens ?? new AccessTokens({});
  const bindHost = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(bindHost) && !accessTokens.enabled) {
    throw new Error(
      `Refusing to bind ${bindHost} without access tokens: set http.accessTokens (or TOOLHOST_ACCESS_TOKENS) so that only your users' clients can call tools.`,
    );
  }
  // A wildcard bind has no address a browser can use: the redirect URI would read
  // http://0.0.0.0:PORT/…, which the vendor rejects or the browser cannot reach.
  const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);
  if (host.oauthProviders.length > 0 && WILDCARD.has(bindHost) && !options.publicUrl) {
    const needing = host.oauthProviders.filter((p) => !p.hasExplicitRedirectUri).map((p) => p.id);
    if (needing.length > 0) {
      throw new Error(
        `Refusing to serve OAuth on the wildcard address ${bindHost} without http.publicUrl: the redirect URI of ${needing.join(', ')} would name ${bindHost}. Set http.publicUrl to the URL users' browsers reach this host at (e.g. https://tools.example.com), or auth.providers.<id>.redirectUri.`,
      );
    }
  }
  let base = '';
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const oauth = oauthRoutes({
    providers: host.oauthProviders,
    accessTokens,
    logger: log,
    ownOrigins: (req) => [new URL(base).origin, `http://${req.headers.host}`],
    secureCookies: () => base.startsWith('https:'),
  });
  const connections = connectionsPage({
    host,
    accessTokens,
    ...(log ? { logger: log } : {}),
    secureCookies: () => base.startsWith('https:'),
  });
  /** POST exchanges whose answer is not yet written; shutdown waits for them. */
  const exchanges = new Set<ServerResponse>();
  let draining = false;

  function health(req: IncomingMessage, res: ServerResponse): void {
    // Without access tokens only loopback clients reach the host; with them, the figures are
    // for holders of a token, and anyone else (a load balancer) learns only that it is up.
    const details = !accessTokens.enabled || accessTokens.userFor(req.headers.authorization) !== undefined;
    res.writeHead(draining ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(
      JSON.stringify(
        details
          ? { status: draining ? 'stopping' : 'ok', tools: catalog.listed.length, sessions: sessions.size }
          : { status: draining ? 'stopping' : 'ok' },
      ),
    );
  }

  /** Tracks a POST's exchange until its answer is written (or the client leaves). */
  function track(res: ServerResponse, session: HttpSession, ids: JsonRpcId[], id: JsonRpcId | null): void {
    exchanges.add(res);
    session.open.set(res, id);
    for (const requestId of ids) session.pending.add(requestId);
    res.once('close', () => {
      exchanges.delete(res);
      session.open.delete(res);
      session.lastSeen = Date.now();
      for (const requestId of ids) session.pending.delete(requestId);
    });
  }

  /**
   * A session closed while requests were in progress (a DELETE, shutdown past its drain):
   * the SDK leaves a JSON-mode POST unanswered for ever, so answer what is still open.
   */
  function answerOpen(session: HttpSession): void {
    for (const [res, id] of session.open) {
      jsonRpcError(res, 404, 'The session was closed before this request was answered', { code: -32001, id });
    }
  }

  /**
   * The SDK ends a cancelled request's handler without answering it (right for stdio, where
   * nothing waits); over HTTP its POST would stay open until the client gave up. Answer it.
   */
  async function answerCancelled(session: HttpSession, ids: JsonRpcId[]): Promise<void> {
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) {
      return jsonRpcError(res, 403, `Host ${req.headers.host ?? '(none)'} is not allowed`);
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && req.method === 'GET') return health(req, res);
    if (await oauth.handle(req, res, url)) return;
    if (await connections.handle(req, res, url)) return;
    if (url.pathname !== path || options.mcp === false) return jsonRpcError(res, 404, 'Not found');
    const origin = req.headers.origin;
    if (!originAllowed(origin, allowedOrigins)) {
      return jsonRpcError(res, 403, `Origin ${origin} is not allowed`);
    }

    // Who is asking, before anything of the request is read.
    let userId = host.config.defaultUserId ?? 'default';
    if (accessTokens.enabled) {
      const user = accessTokens.userFor(req.headers.authorization);
      if (!user) {
        req.resume();
        return jsonRpcError(res, 401, 'Unauthorized: send Authorization: Bearer <access token>', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      }
      userId = user;
    }

    let parsed: unknown;
    if (req.method === 'POST') {
      let text: string;
      try {
        text = await readBody(req, maxBody);
      } catch (e) {
        const tooLarge = e instanceof BodyTooLarge;
        return jsonRpcError(res, tooLarge ? 413 : 400, tooLarge ? 'Request body too large' : 'Bad request');
      }
      try {
        parsed = JSON.parse(text);
      } catch {
        return jsonRpcError(res, 400, 'Parse error: the body is not JSON', { code: -32700 });
      }
    }
    const id = requestIdOf(parsed);
    if (draining) {
      return jsonRpcError(res, 503, 'The server is shutting down', { id, headers: { connection: 'close' } });
    }
    const requestIds = (Array.isArray(parsed) ? parsed : [parsed]).filter(isRequest).map((m) => m.id);

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, 'Session not found', { code: -32001, id });
      // A session belongs to the user who opened it; another user's token cannot ride on it.
      if (session.userId !== userId) {
        return jsonRpcError(res, 403, 'This session belongs to another user', { id });
      }
      session.lastSeen = Date.now();
      if (req.method === 'POST') track(res, session, requestIds, id);
      await session.transport.handleRequest(req, res, parsed);
      if (req.method === 'POST') session.release?.();
      const cancelled = cancelledIds(parsed);
      if (cancelled.length > 0) await answerCancelled(session, cancelled);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      return jsonRpcError(res, 400, 'Bad request: no valid session id, and not an initialize request', {
        id,
      });
    }

    // Without access tokens every local client is the same user; the client's name is what
    // tells them apart, so that one that never closes its sessions evicts only its own.
    const owner = accessTokens.enabled ? userId : `${userId}\u0000${parsed.params.clientInfo.name}`;
    const refused = sessions.admit(owner);
    if (refused) return jsonRpcError(res, refused.status, refused.message, { id });

    // Answers are JSON bodies, with the SDK's per-request state released after each (see
    // json-response-release.ts); SSE streams only where that release is not possible.
    const { transport, release } = sessionTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        const session: HttpSession = {
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
        sessions.add(session);
        opened = session;
        track(res, session, requestIds, id);
        log?.info({ session: sid, user: userId }, 'session opened');
      },
    });
    let opened: HttpSession | undefined;
    const server = createMcpServer(host, catalog, { ...options.serverInfo, userId });
    transport.onclose = () => {
      if (transport.sessionId) {
        sessions.remove(transport.sessionId);
        log?.info({ session: transport.sessionId, user: userId }, 'session closed');
      }
      if (opened) answerOpen(opened);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
    release?.();
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log?.error({ err: (e as Error).message }, 'request failed');
      jsonRpcError(res, 500, 'Internal error', { code: -32603 });
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, bindHost, () => resolve());
  }).catch(async (e: unknown) => {
    await sessions.closeAll();
    throw e;
  });
  const { port } = httpServer.address() as AddressInfo;
  hostAllowed = hostGuard({
    bindHost,
    port,
    publicUrl: options.publicUrl,
    allowedHosts: options.allowedHosts,
  });
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  base = options.publicUrl ?? `http://${shownHost}:${port}`;
  for (const provider of host.oauthProviders) provider.setRedirectBase(base);
  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    async close() {
      draining = true;
      // No new connections; requests on open ones are answered 503 while answers drain.
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      const deadline = Date.now() + (options.drainSeconds ?? 5) * 1000;
      while (exchanges.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await sessions.closeAll();
      httpServer.closeAllConnections();
      await closed;
    },
  };
}
