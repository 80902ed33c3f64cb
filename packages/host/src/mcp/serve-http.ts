import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { AccessTokens } from '../auth/access-tokens.js';
import { oauthRoutes } from '../auth/oauth-routes.js';
import type { Host } from '../host.js';
import type { Logger } from '../logger.js';
import { createMcpServer, prepareMcpCatalog } from './create-mcp-server.js';

export interface HttpServeOptions {
  host?: string;
  port?: number;
  path?: string;
  /** Origins allowed besides loopback ones (DNS-rebinding protection). */
  allowedOrigins?: string[];
  maxBodyBytes?: number;
  logger?: Logger;
  serverInfo?: { name: string; version: string };
  /** Operator-issued bearer tokens mapped to user ids; required to bind beyond loopback. */
  accessTokens?: AccessTokens;
  /** The URL browsers reach this server at, for OAuth redirect URIs (default: the bound address). */
  publicUrl?: string;
  /** false: serve only OAuth callbacks and health (the stdio mode's companion server). */
  mcp?: boolean;
  /** Open sessions per user (default 16) and in all (default 1000). */
  maxSessionsPerUser?: number;
  maxSessions?: number;
  /** Idle sessions are closed after this long (default 1800 s). */
  sessionIdleSeconds?: number;
}

export interface HttpServerHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering but let the rest drain, so the 413 can still be read by the client.
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonRpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Streamable HTTP: a fresh MCP server and transport per session, never shared between
 * clients (sharing one leaked responses across clients, CVE-2026-25536).
 */
export async function serveHttp(host: Host, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const catalog = prepareMcpCatalog(host);
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const allowed = new Set(options.allowedOrigins ?? []);
  type Session = {
    transport: StreamableHTTPServerTransport;
    server: Server;
    userId: string;
    lastSeen: number;
  };
  const sessions = new Map<string, Session>();
  const maxPerUser = options.maxSessionsPerUser ?? 16;
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = (options.sessionIdleSeconds ?? 1800) * 1000;
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, session] of sessions) {
        if (session.lastSeen < cutoff) {
          sessions.delete(id);
          log?.debug({ session: id }, 'idle session closed');
          session.server.close().catch(() => {});
        }
      }
    },
    Math.min(60_000, Math.max(250, idleMs / 4)),
  );
  sweep.unref();
  const log = options.logger;
  const accessTokens = options.accessTokens ?? new AccessTokens({});
  const bindHost = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(bindHost) && !accessTokens.enabled) {
    throw new Error(
      `Refusing to bind ${bindHost} without access tokens: set http.accessTokens (or TOOLHOST_ACCESS_TOKENS) so that only your users' clients can call tools.`,
    );
  }
  let base = '';
  const oauth = oauthRoutes({
    providers: host.oauthProviders,
    accessTokens,
    logger: log,
    ownOrigins: (req) => [new URL(base).origin, `http://${req.headers.host}`],
    secureCookies: () => base.startsWith('https:'),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', tools: catalog.listed.length, sessions: sessions.size }));
      return;
    }
    if (await oauth.handle(req, res, url)) return;
    if (url.pathname !== path || options.mcp === false) return jsonRpcError(res, 404, 'Not found');
    const origin = req.headers.origin;
    if (origin && !LOOPBACK_ORIGIN.test(origin) && !allowed.has(origin)) {
      return jsonRpcError(res, 403, `Origin ${origin} is not allowed`);
    }

    let parsed: unknown;
    if (req.method === 'POST') {
      let text: string;
      try {
        text = await readBody(req, maxBody);
      } catch (e) {
        return jsonRpcError(
          res,
          e instanceof BodyTooLarge ? 413 : 400,
          e instanceof BodyTooLarge ? 'Request body too large' : 'Bad request',
        );
      }
      try {
        parsed = JSON.parse(text);
      } catch {
        return jsonRpcError(res, 400, 'Parse error: the body is not JSON', -32700);
      }
    }

    let userId = host.config.defaultUserId ?? 'default';
    if (accessTokens.enabled) {
      const user = accessTokens.userFor(req.headers.authorization);
      if (!user) {
        res.setHeader('www-authenticate', 'Bearer');
        return jsonRpcError(res, 401, 'Unauthorized: send Authorization: Bearer <access token>');
      }
      userId = user;
    }

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, 'Session not found');
      // A session belongs to the user who opened it; another user's token cannot ride on it.
      if (session.userId !== userId) return jsonRpcError(res, 403, 'This session belongs to another user');
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res, parsed);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      return jsonRpcError(res, 400, 'Bad request: no valid session id, and not an initialize request');
    }

    let mine = 0;
    for (const s of sessions.values()) if (s.userId === userId) mine += 1;
    if (mine >= maxPerUser)
      return jsonRpcError(res, 429, `Too many open sessions for this user (limit ${maxPerUser})`);
    if (sessions.size >= maxSessions)
      return jsonRpcError(res, 503, `Too many open sessions (limit ${maxSessions})`);

    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // A call's answer is one JSON body rather than an SSE stream of one event: no stream
      // machinery per call. Nothing of the host's is sent on a call's stream before its answer
      // (no progress or log notifications); server-initiated messages use the session's GET stream.
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, userId, lastSeen: Date.now() });
        log?.debug({ session: id }, 'session opened');
      },
    });
    const server = createMcpServer(host, catalog, {
      ...options.serverInfo,
      userId,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log?.error({ err: (e as Error).message }, 'request failed');
      jsonRpcError(res, 500, 'Internal error', -32603);
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, bindHost, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  base = options.publicUrl ?? `http://${shownHost}:${port}`;
  for (const provider of host.oauthProviders) provider.setRedirectBase(base);
  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => {})));
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
