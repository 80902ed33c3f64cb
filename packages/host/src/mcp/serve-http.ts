import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessTokens } from '../auth/access-tokens.js';
import { connectionsPage } from '../auth/connections-page.js';
import { oauthRoutes } from '../auth/oauth-routes.js';
import type { Host } from '../host.js';
import type { Logger } from '../logger.js';
import { metricsRoute } from '../observability/metrics-route.js';
import { prepareMcpCatalog } from './create-mcp-server.js';
import { HttpSessions } from './http-sessions.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { hostGuard, jsonRpcError, LOOPBACK_HOSTS } from './request-guards.js';

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
  refuseUnsafeBind(host, bindHost, accessTokens, options.publicUrl);
  let base = '';
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const secureCookies = () => base.startsWith('https:');
  const oauth = oauthRoutes({
    providers: host.oauthProviders,
    accessTokens,
    logger: log,
    ownOrigins: (req) => [new URL(base).origin, `http://${req.headers.host}`],
    secureCookies,
  });
  const metrics = metricsRoute({ host, accessTokens });
  const connections = connectionsPage({ host, accessTokens, ...(log ? { logger: log } : {}), secureCookies });
  /** POST exchanges whose answer is not yet written; shutdown waits for them. */
  const exchanges = new Set<ServerResponse>();
  let draining = false;
  const mcp = new McpEndpoint({
    host,
    catalog,
    sessions,
    accessTokens,
    allowedOrigins,
    maxBodyBytes: maxBody,
    ...(log ? { logger: log } : {}),
    ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
    draining: () => draining,
    exchanges,
  });

  const health = (req: IncomingMessage, res: ServerResponse) =>
    answerHealth(req, res, { accessTokens, draining, tools: catalog.listed.length, sessions: sessions.size });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) {
      return jsonRpcError(res, 403, `Host ${req.headers.host ?? '(none)'} is not allowed`);
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz' && req.method === 'GET') return health(req, res);
    if (await oauth.handle(req, res, url)) return;
    if (await metrics.handle(req, res, url)) return;
    if (await connections.handle(req, res, url)) return;
    if (url.pathname !== path || options.mcp === false) return jsonRpcError(res, 404, 'Not found');
    return mcp.handle(req, res);
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log?.error({ err: (e as Error).message }, 'request failed');
      jsonRpcError(res, 500, 'Internal error', { code: -32603 });
    });
  });
  await listen(httpServer, options.port ?? 0, bindHost, sessions);
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
      await drainAndClose(httpServer, exchanges, sessions, options.drainSeconds ?? 5);
    },
  };
}

/** Refuses the binds that would expose tools or OAuth where they must not be. */
function refuseUnsafeBind(
  host: Host,
  bindHost: string,
  accessTokens: AccessTokens,
  publicUrl?: string,
): void {
  if (!LOOPBACK_HOSTS.has(bindHost) && !accessTokens.enabled) {
    throw new Error(
      `Refusing to bind ${bindHost} without access tokens: set http.accessTokens (or TOOLHOST_ACCESS_TOKENS) so that only your users' clients can call tools.`,
    );
  }
  // A wildcard bind has no address a browser can use: the redirect URI would read
  // http://0.0.0.0:PORT/…, which the vendor rejects or the browser cannot reach.
  if (host.oauthProviders.length === 0 || !WILDCARD_HOSTS.has(bindHost) || publicUrl) return;
  const needing = host.oauthProviders.filter((p) => !p.hasExplicitRedirectUri).map((p) => p.id);
  if (needing.length > 0) {
    throw new Error(
      `Refusing to serve OAuth on the wildcard address ${bindHost} without http.publicUrl: the redirect URI of ${needing.join(', ')} would name ${bindHost}. Set http.publicUrl to the URL users' browsers reach this host at (e.g. https://tools.example.com), or auth.providers.<id>.redirectUri.`,
    );
  }
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** `GET /healthz`: the figures for token holders (or on loopback), only the status for anyone else. */
function answerHealth(
  req: IncomingMessage,
  res: ServerResponse,
  state: { accessTokens: AccessTokens; draining: boolean; tools: number; sessions: number },
): void {
  // Without access tokens only loopback clients reach the host; with them, the figures are
  // for holders of a token, and anyone else (a load balancer) learns only that it is up.
  const { accessTokens, draining } = state;
  const details = !accessTokens.enabled || accessTokens.userFor(req.headers.authorization) !== undefined;
  const status = draining ? 'stopping' : 'ok';
  res.writeHead(draining ? 503 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(details ? { status, tools: state.tools, sessions: state.sessions } : { status }));
}

/** Stops taking connections, waits (bounded) for answers being written, then closes everything. */
async function drainAndClose(
  httpServer: Server,
  exchanges: ReadonlySet<ServerResponse>,
  sessions: HttpSessions,
  drainSeconds: number,
): Promise<void> {
  // No new connections; requests on open ones are answered 503 while answers drain.
  const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
  const deadline = Date.now() + drainSeconds * 1000;
  while (exchanges.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await sessions.closeAll();
  httpServer.closeAllConnections();
  await closed;
}

/** Starts listening; a failure (a port in use) closes what was set up before it is reported. */
async function listen(
  httpServer: Server,
  port: number,
  bindHost: string,
  sessions: HttpSessions,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, bindHost, () => resolve());
  }).catch(async (e: unknown) => {
    await sessions.closeAll();
    throw e;
  });
}
