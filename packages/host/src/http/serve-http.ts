import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessTokens } from '../auth/access-tokens.js';
import { FrontDoor, type FrontDoorSettings } from '../auth/front-door/front-door.js';
import { frontDoorFromConfig } from '../auth/front-door/front-door-config.js';
import { toolLookupOf } from '../auth/front-door/tool-lookup.js';
import type { OwnAuthorizationServer } from '../auth/own-authorization-server.js';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { REVISION_SERVER_VERSIONS } from '../mcp/protocol-eras.js';
import type { JSONRPCMessage } from '../mcp/sdk.js';
import { type McpServingState, prepareMcpServingState } from '../mcp/serving-state.js';
import { sendCompletionNotice } from '../mcp/tool-calls.js';
import type { Replicas } from '../replicas.js';
import { CONNECTIONS_PATH, connectionsPage } from './connections-page.js';
import { PAGES_CALLBACK_PATH } from './front-door-sign-in.js';
import { answerHome } from './home-page.js';
import { HttpSessions } from './http-sessions.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { METRICS_PATH, metricsRoute } from './metrics-route.js';
import { ModernRequests } from './modern-requests.js';
import { oauthRoutes } from './oauth-routes.js';
import { pagesSignInOf } from './pages-sign-in.js';
import { hostGuard, jsonRpcError, LOOPBACK_HOSTS, writeJson } from './request-guards.js';
import { signedOutInRedis } from './sign-in-cookie.js';

/**
 * The HTTP server's options. What is left out comes from the host's config (`http.*`, with its
 * defaults), except the port (default: any free one) and the access tokens (default: none).
 */
export interface HttpServeOptions {
  /** The address to listen on (default `http.host`, loopback); `0.0.0.0` or `::` for every interface. */
  bindAddress?: string;
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
  /**
   * The MCP endpoint as an OAuth protected resource: who issues its tokens and how they are
   * checked (default: from `http.authorization`; the host's own authorization server hands in
   * its own). Static access tokens keep working beside it.
   */
  frontDoor?: FrontDoorSettings;
  /** A bearer token of its own for `/metrics` (default `http.metricsToken`). */
  metricsToken?: string;
  /** The URL browsers reach this server at, for OAuth redirect URIs (default: the bound address). */
  publicUrl?: string;
  /** false: serve only OAuth pages and health (the stdio mode's companion server). */
  mcp?: boolean;
  /** Open sessions per user (per user and client without access tokens) and in all. */
  maxSessionsPerUser?: number;
  maxSessions?: number;
  /** Idle sessions are closed after this long. */
  sessionIdleSeconds?: number;
  /** How long close() waits for answers still being written (default 5 s). */
  drainSeconds?: number;
  /** Idle connections are kept this long (default `http.keepAliveSeconds`). */
  keepAliveSeconds?: number;
  /** A request's headers may take this long (default `http.headersTimeoutSeconds`, else keep-alive + 5 s). */
  headersTimeoutSeconds?: number;
  /** How long `beginStopping()` keeps serving after the probes turn 503 (default `http.drainDelaySeconds`). */
  drainDelaySeconds?: number;
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
  /**
   * Tells balancers at once that this server is stopping (SIGTERM): `/healthz` and `/readyz`
   * answer 503 from now. Requests are still served for the drain delay (`drainDelaySeconds`,
   * or the option's), while balancers notice; then new MCP requests are refused (503) while
   * calls in progress finish. Resolves when the delay is over.
   */
  beginStopping(options?: { drainDelaySeconds?: number }): Promise<void>;
}

/** Answers a request if it is its route (true), else leaves it to the next (false). */
export type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) => boolean | Promise<boolean>;

/** What the routes of one HTTP server share. */
export interface ServerState {
  host: Host;
  options: HttpSettings;
  mcpState: McpServingState;
  sessions: HttpSessions;
  accessTokens: AccessTokens;
  /**
   * The tokens the pages (connections, metrics, probes' figures, home) check: the access tokens,
   * or, where OAuth alone is the door, none that is still required, so that nobody reaching
   * the host counts as its local operator.
   */
  pageTokens: AccessTokens;
  /** The OAuth front door, once the server listens (its resource URL follows the port). */
  frontDoor: () => FrontDoor | undefined;
  shared?: Replicas;
  /** The URL browsers reach this server at, known once it listens. */
  base: () => string;
  draining: () => boolean;
  /** SIGTERM came (or close()): the probes answer 503, requests may still be served. */
  stopping: () => boolean;
  /** POST exchanges whose answer is not yet written; shutdown waits for them. */
  exchanges: Set<ServerResponse>;
  /** The host's own authorization server, when configured: the MCP endpoint honours its tokens. */
  ownAuthorizationServer?: OwnAuthorizationServer;
}

/** The options given, with the host's config (`http.*`, defaults filled in) for what they leave out. */
type HttpSettings = ReturnType<typeof settingsOf>;

function settingsOf(host: Host, options: HttpServeOptions) {
  const http = host.config.http;
  return {
    ...options,
    bindAddress: options.bindAddress ?? http.host,
    path: options.path ?? http.path,
    publicUrl: options.publicUrl ?? http.publicUrl,
    allowedOrigins: options.allowedOrigins ?? http.allowedOrigins,
    allowedHosts: options.allowedHosts ?? http.allowedHosts,
    maxBodyBytes: options.maxBodyBytes ?? http.maxBodyBytes,
    maxSessionsPerUser: options.maxSessionsPerUser ?? http.maxSessionsPerUser,
    maxSessions: options.maxSessions ?? http.maxSessions,
    sessionIdleSeconds: options.sessionIdleSeconds ?? http.sessionIdleSeconds,
    drainDelaySeconds: options.drainDelaySeconds ?? http.drainDelaySeconds,
    metricsToken: options.metricsToken ?? http.metricsToken,
    ...connectionTimeouts(options, http),
  };
}

/**
 * Keep-alive above a pooling balancer's idle timeout, so that the balancer, not the host, closes
 * idle connections (else it may send on one the host is closing: a 502). Headers may take
 * longer than that: where they did not, Node could end a reused connection's next request
 * on the idle time alone.
 */
function connectionTimeouts(
  options: Pick<HttpServeOptions, 'keepAliveSeconds' | 'headersTimeoutSeconds'>,
  http: { keepAliveSeconds: number; headersTimeoutSeconds?: number },
) {
  const keepAliveSeconds = options.keepAliveSeconds ?? http.keepAliveSeconds;
  const headersTimeoutSeconds =
    options.headersTimeoutSeconds ?? http.headersTimeoutSeconds ?? keepAliveSeconds + 5;
  if (headersTimeoutSeconds <= keepAliveSeconds)
    throw new Error(
      `http.headersTimeoutSeconds (${headersTimeoutSeconds}) must be above http.keepAliveSeconds (${keepAliveSeconds}); leave it unset for keep-alive + 5 s.`,
    );
  return { keepAliveSeconds, headersTimeoutSeconds };
}

/** Applies the connection timeouts: Node requires the whole request's deadline to be no shorter. */
function applyConnectionTimeouts(
  server: Server,
  { keepAliveSeconds, headersTimeoutSeconds }: ReturnType<typeof connectionTimeouts>,
): void {
  server.keepAliveTimeout = keepAliveSeconds * 1000;
  server.headersTimeout = headersTimeoutSeconds * 1000;
  server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}

/**
 * Streamable HTTP: a fresh MCP server and transport per session, never shared between
 * clients (sharing one leaked responses across clients, CVE-2026-25536). With a shared store
 * (Redis), sessions are recorded there, and any replica serves any of them.
 */
export async function serveHttp(host: Host, given: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const options = settingsOf(host, given);
  const accessTokens = options.accessTokens ?? new AccessTokens({});
  const doorSettings = options.frontDoor ?? frontDoorFromConfig(host.config, {});
  const bindHost = options.bindAddress;
  const oauth = doorSettings !== undefined || host.config.http.authorization?.mode === 'host';
  refuseUnsafeBind(host, bindHost, accessTokens, options.publicUrl, oauth);
  let base = '';
  let frontDoor: FrontDoor | undefined;
  let draining = false;
  /** SIGTERM came: the probes say so at once, requests are served until `refusing`. */
  let stopping = false;
  let refusing = false;
  const state: ServerState = {
    host,
    options,
    mcpState: prepareMcpServingState(host),
    sessions: openSessions(options),
    accessTokens,
    pageTokens: oauth && !accessTokens.enabled ? new AccessTokens({}, true) : accessTokens,
    frontDoor: () => frontDoor,
    shared: host.serving.replicas,
    base: () => base,
    draining: () => draining || refusing,
    stopping: () => draining || stopping,
    exchanges: new Set(),
  };
  if (options.mcp !== false)
    host.serving.gauge({
      name: 'toolhost_http_sessions',
      help: 'Open MCP sessions held by this replica.',
      read: () => state.sessions.size,
    });
  // /metrics reads the counters: they count from the start (and their modules load now).
  await host.metrics();
  const routes = await serverRoutes(state);
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const httpServer = createServer((req, res) => {
    const trustedHost = hostAllowed(req.headers.host);
    // A balancer's probes name the replica's own address: answered whatever the Host, with
    // the status alone where the Host is not one of ours.
    if (answerProbe(req, res, state, trustedHost)) return;
    if (!trustedHost && !scrapeByAddress(req, state)) {
      return jsonRpcError(res, 403, `Host ${req.headers.host ?? '(none)'} is not allowed`);
    }
    dispatch(routes, req, res).catch((e: unknown) => {
      options.logger?.error({ err: (e as Error).message }, 'request failed');
      jsonRpcError(res, 500, 'Internal error', { code: -32603 });
    });
  });
  applyConnectionTimeouts(httpServer, options);
  await listen(httpServer, options.port ?? 0, bindHost, state.sessions);
  const { port } = httpServer.address() as AddressInfo;
  hostAllowed = hostGuard({
    bindHost,
    port,
    publicUrl: options.publicUrl,
    allowedHosts: options.allowedHosts,
  });
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  base = options.publicUrl ?? `http://${shownHost}:${port}`;
  for (const provider of host.oauthProviders) provider.signIn.setRedirectBase(base);
  const door = doorSettings ?? ownServerDoor(state.ownAuthorizationServer);
  if (door)
    frontDoor = new FrontDoor(door, `${base.replace(/\/$/, '')}${options.path}`, state.mcpState.audit);
  return {
    url: `http://${shownHost}:${port}${options.path}`,
    port,
    async beginStopping({ drainDelaySeconds = options.drainDelaySeconds } = {}) {
      stopping = true;
      if (drainDelaySeconds > 0) await new Promise((r) => setTimeout(r, drainDelaySeconds * 1000));
      refusing = true;
    },
    async close() {
      draining = true;
      await drainAndClose(httpServer, state.exchanges, state.sessions, options.drainSeconds ?? 5);
      await state.mcpState.warming;
    },
  };
}

/** The open sessions of this server, within the configured caps. */
function openSessions(options: HttpSettings): HttpSessions {
  return new HttpSessions(
    {
      maxPerOwner: options.maxSessionsPerUser,
      max: options.maxSessions,
      idleMs: options.sessionIdleSeconds * 1000,
    },
    options.logger,
  );
}

/**
 * The server's routes, tried in order: MCP on its path (first: every tool call comes this way,
 * and need not try the pages), health, the home page, the OAuth pages, metrics, the
 * connections page, then 404 for any other path.
 */
async function serverRoutes(state: ServerState): Promise<RouteHandler[]> {
  const { host, options, accessTokens, shared } = state;
  const log = options.logger;
  const secureCookies = () => state.base().startsWith('https:');
  const pagesSignIn =
    options.mcp === false
      ? undefined
      : pagesSignInOf(state, secureCookies, shared?.signingKey('connections-sign-in-state'));
  // Where OAuth alone is the door, a vendor link is never bound to whoever opens it first.
  const signInFirst = pagesSignIn !== undefined || (state.pageTokens.enabled && !accessTokens.enabled);
  const oauth = oauthRoutes({
    providers: host.oauthProviders,
    accessTokens,
    ...(log ? { logger: log } : {}),
    ownOrigins: (req) => [new URL(state.base()).origin, `http://${req.headers.host}`],
    secureCookies,
    ...(shared ? { bindingKey: shared.signingKey('oauth-flow-binding') } : {}),
    ...(signInFirst
      ? {
          signedInBinding: (provider: string, flow: string) =>
            `${CONNECTIONS_PATH}/authorize?${new URLSearchParams({ provider, flow })}`,
        }
      : {}),
  });
  const connections = connectionsPage({
    host,
    accessTokens: state.pageTokens,
    ...(log ? { logger: log } : {}),
    secureCookies,
    ...(shared
      ? { signingKey: shared.signingKey('connections-cookie'), signedOut: signedOutInRedis(shared.redis) }
      : {}),
    ...(pagesSignIn ? { frontDoor: pagesSignIn } : {}),
    ...(signInFirst ? { bindFlow: oauth.bindSignedIn } : {}),
  });
  const mcp = options.mcp === false ? undefined : await mcpRoute(state);
  const ownServer = mcp ? await ownAuthorizationServer(state) : undefined;
  return [
    (req, res, url) => url.pathname === options.path && mcp !== undefined && mcp(req, res, url),
    ...(ownServer ? [ownServer] : []),
    (req, res, url) => answerResourceMetadata(state.frontDoor(), req, res, url),
    (req, res, url) =>
      url.pathname === '/' &&
      req.method === 'GET' &&
      answerHome(res, {
        host,
        base: state.base(),
        mcpPath: mcp ? options.path : undefined,
        ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
        showFigures: !state.pageTokens.enabled,
      }),
    oauth.handle,
    metricsRoute({ host, accessTokens: state.pageTokens, metricsToken: options.metricsToken }).handle,
    connections.handle,
    (_req, res) => {
      jsonRpcError(res, 404, 'Not found');
      return true;
    },
  ];
}

/**
 * The host's own authorization server, when `http.authorization.mode` is `host`: its module is
 * loaded only then, and its issuer follows the URL this server is reached at.
 */
async function ownAuthorizationServer(state: ServerState): Promise<RouteHandler | undefined> {
  if (state.host.config.http.authorization?.mode !== 'host') return undefined;
  const { openOwnAuthorizationServer } = await import('../auth/own-authorization-server.js');
  const own = await openOwnAuthorizationServer(state.host, {
    base: state.base,
    mcpPath: state.options.path,
    pagesRedirectUri: () => `${state.base().replace(/\/$/, '')}${PAGES_CALLBACK_PATH}`,
    accessTokens: state.accessTokens,
    ...(state.options.logger ? { logger: state.options.logger } : {}),
  });
  state.ownAuthorizationServer = own;
  return (req, res, url) => own.handle(req, res, url);
}

/** The MCP path (Streamable HTTP), with the replicas' shared sessions where there are some. */
async function mcpRoute(state: ServerState): Promise<RouteHandler> {
  const { host, options, shared } = state;
  const idleMs = options.sessionIdleSeconds * 1000;
  const sharedSessions = shared?.sessions(idleMs);
  // A session its client ended on another replica ends here too.
  await sharedSessions?.onClosed(
    (id) =>
      void state.sessions
        .get(id)
        ?.server.close()
        .catch(() => {}),
  );
  // The client's answers to a request this replica sent, wherever they landed.
  await sharedSessions?.onAnswers((id, messages) => {
    const transport = state.sessions.get(id)?.transport;
    for (const message of messages) transport?.onmessage?.(message as JSONRPCMessage);
  });
  // A completion notice for a session whose event stream is open here, from any replica.
  await sharedSessions?.onCompletion((id, elicitationId) => {
    const session = state.sessions.get(id);
    if (session) void sendCompletionNotice(session.server, elicitationId);
  });
  const mcp = new McpEndpoint({
    host,
    mcpState: state.mcpState,
    sessions: state.sessions,
    accessTokens: state.accessTokens,
    frontDoor: state.frontDoor,
    toolLookup: toolLookupOf(host, state.mcpState.names),
    allowedOrigins: new Set(options.allowedOrigins ?? []),
    maxBodyBytes: options.maxBodyBytes,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
    draining: state.draining,
    exchanges: state.exchanges,
    ...(sharedSessions ? { shared: sharedSessions } : {}),
    modern: new ModernRequests({
      createServer: (userId) => createMcpServer(host, state.mcpState, { ...options.serverInfo, userId }),
      createRevisionServer: () => {
        const server = createMcpServer(host, state.mcpState, {
          ...options.serverInfo,
          userPerRequest: true,
          supportedProtocolVersions: REVISION_SERVER_VERSIONS,
        });
        server.onerror = (e: Error) => options.logger?.debug({ err: e.message }, 'MCP request refused');
        return server;
      },
      maxBodyBytes: options.maxBodyBytes,
      ...(options.logger
        ? { onerror: (e: Error) => options.logger?.debug({ err: e.message }, 'MCP request refused') }
        : {}),
    }),
  });
  return async (req, res) => {
    await mcp.handle(req, res);
    return true;
  };
}

async function dispatch(
  routes: readonly RouteHandler[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  for (const route of routes) if (await route(req, res, url)) return;
}

/** The front door of the host's own authorization server: its in-process token check, no HTTP round trip. */
function ownServerDoor(own: OwnAuthorizationServer | undefined): FrontDoorSettings | undefined {
  if (!own) return undefined;
  return { authorizationServers: [own.issuer()], verifier: () => own.verifier };
}

/** `GET /.well-known/oauth-protected-resource[/mcp]` (RFC 9728), where the front door is configured. */
function answerResourceMetadata(
  door: FrontDoor | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): boolean {
  if (!door?.servesMetadataAt(url.pathname)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    jsonRpcError(res, 405, 'Method not allowed', { headers: { allow: 'GET, HEAD' } });
    return true;
  }
  door.answerMetadata(res);
  return true;
}

/** Refuses the binds that would expose tools or OAuth where they must not be. */
function refuseUnsafeBind(
  host: Host,
  bindHost: string,
  accessTokens: AccessTokens,
  publicUrl: string | undefined,
  oauth: boolean,
): void {
  if (!LOOPBACK_HOSTS.has(bindHost) && !accessTokens.enabled && !oauth) {
    throw new Error(
      `Refusing to bind ${bindHost} without access tokens: set http.authorization (an identity provider's issuer, TOOLHOST_AUTH_ISSUER) or http.accessTokens (TOOLHOST_ACCESS_TOKENS) so that only your users' clients can call tools.`,
    );
  }
  // A wildcard bind has no address a browser can use: the redirect URI would read
  // http://0.0.0.0:PORT/…, which the vendor rejects or the browser cannot reach.
  if (host.oauthProviders.length === 0 || !WILDCARD_HOSTS.has(bindHost) || publicUrl) return;
  const needing = host.oauthProviders.filter((p) => !p.signIn.hasExplicitRedirectUri).map((p) => p.id);
  if (needing.length > 0) {
    throw new Error(
      `Refusing to serve OAuth on the wildcard address ${bindHost} without http.publicUrl: the redirect URI of ${needing.join(', ')} would name ${bindHost}. Set http.publicUrl to the URL users' browsers reach this host at (e.g. https://tools.example.com), or auth.providers.<id>.redirectUri.`,
    );
  }
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The probes: `GET /livez` (the process serves: 200 even while stopping, so that it is not
 * killed before its calls finish), `GET /readyz` (send it traffic: 503 from SIGTERM, and while
 * the shared store is unreachable) and `GET /healthz` (503 from SIGTERM; 200 through a Redis
 * outage, which every replica shares). Figures only for token holders (or on loopback), and
 * only where the Host is one of ours. False for any other request.
 */
function answerProbe(
  req: IncomingMessage,
  res: ServerResponse,
  state: ServerState,
  trustedHost: boolean,
): boolean {
  if (req.method !== 'GET' || !req.url?.startsWith('/')) return false;
  const path = req.url.split('?')[0];
  if (path !== '/healthz' && path !== '/livez' && path !== '/readyz') return false;
  const accessTokens = state.pageTokens;
  const stopping = state.stopping();
  const storeDown = state.shared !== undefined && !state.shared.reachable();
  const details =
    trustedHost && (!accessTokens.enabled || accessTokens.userFor(req.headers.authorization) !== undefined);
  let status: string;
  let ok: boolean;
  if (path === '/livez') [status, ok] = ['ok', true];
  else if (stopping) [status, ok] = ['stopping', false];
  else if (path === '/readyz' && storeDown) [status, ok] = ['store_unavailable', false];
  else [status, ok] = [path === '/readyz' ? 'ready' : 'ok', true];
  // The tools as the start log and `toolhost list` count them (the MCP list adds the host's
  // own helpers, such as the write-preview tools, and in dynamic mode lists only those).
  const figures = {
    tools: state.host.listTools().length,
    sessions: state.sessions.size,
    ...(state.shared ? { store: storeDown ? 'unreachable' : 'ok' } : {}),
  };
  writeJson(res, ok ? 200 : 503, details ? { status, ...figures } : { status }, {
    'cache-control': 'no-store',
  });
  return true;
}

/**
 * A scraper per replica (Prometheus' Kubernetes discovery) names the pod's own address, which
 * no Host guard can know. `/metrics` alone is answered whatever the Host, and only where it
 * needs a bearer token (access tokens or the metrics token): a DNS-rebinding page cannot send
 * one, so the guard it stands for holds. Everything else (MCP, OAuth, /connections) keeps it.
 */
function scrapeByAddress(req: IncomingMessage, state: ServerState): boolean {
  const protectedMetrics = state.pageTokens.enabled || state.options.metricsToken !== undefined;
  return protectedMetrics && req.url?.split('?')[0] === METRICS_PATH;
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
