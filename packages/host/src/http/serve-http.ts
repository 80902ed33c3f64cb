import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FrontDoor } from '@toolhost/front-door/front-door';
import { AccessTokens } from '../auth/access-tokens.js';
import { frontDoorFromConfig } from '../auth/front-door/front-door-config.js';
import { grantedScopes, HOST_SCOPES, type HostScope } from '../auth/front-door/scopes.js';
import type { Host } from '../host-api.js';
import { prepareMcpServingState } from '../mcp/serving-state.js';
import { signInAudit } from '../observability/audit-log.js';
import { HttpSessions } from './http-sessions.js';
import {
  applyConnectionTimeouts,
  type HttpServeOptions,
  type HttpSettings,
  settingsOf,
} from './http-settings.js';
import { answerProbe, scrapeByAddress } from './probes.js';
import { hostGuard, jsonRpcError, LOOPBACK_HOSTS } from './request-guards.js';
import { ownServerDoor, serverRoutes } from './server-routes.js';
import type { RouteHandler, ServerState } from './server-state.js';

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
  const phase: ServerPhase = { base: '', draining: false, stopping: false, refusing: false };
  const state = serverState(host, options, accessTokens, oauth, phase);
  // /metrics reads the counters: they count from the start (their modules load after the
  // first answer, or at the first call or scrape).
  host.serving.countCalls();
  const routes = await serverRoutes(state);
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const httpServer = createServer(answerRequest(state, routes, (name) => hostAllowed(name)));
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
  phase.base = options.publicUrl ?? `http://${shownHost}:${port}`;
  for (const provider of host.oauthProviders) provider.signIn.setRedirectBase(phase.base);
  const door = doorSettings ?? ownServerDoor(state.ownAuthorizationServer);
  if (door)
    phase.frontDoor = new FrontDoor(door, `${phase.base.replace(/\/$/, '')}${options.path}`, {
      scopes: HOST_SCOPES,
      grants: grantedScopes,
      ...signInAudit(state.mcpState.audit),
    });
  return serverHandle(httpServer, state, phase, { url: `http://${shownHost}:${port}${options.path}`, port });
}

/** Where the server is in its life: set as it listens and as it stops, read by its routes. */
interface ServerPhase {
  /** The URL browsers reach this server at, known once it listens. */
  base: string;
  frontDoor?: FrontDoor<HostScope>;
  draining: boolean;
  /** SIGTERM came: the probes say so at once, requests are served until `refusing`. */
  stopping: boolean;
  refusing: boolean;
}

/** What the routes share, read through the phase the server is in. */
function serverState(
  host: Host,
  options: HttpSettings,
  accessTokens: AccessTokens,
  oauth: boolean,
  phase: ServerPhase,
): ServerState {
  const state: ServerState = {
    host,
    options,
    mcpState: prepareMcpServingState(host),
    sessions: openSessions(options),
    accessTokens,
    pageTokens: oauth && !accessTokens.enabled ? new AccessTokens({}, true) : accessTokens,
    frontDoor: () => phase.frontDoor,
    shared: host.serving.replicas,
    base: () => phase.base,
    draining: () => phase.draining || phase.refusing,
    stopping: () => phase.draining || phase.stopping,
    exchanges: new Set(),
  };
  if (options.mcp !== false)
    host.serving.gauge({
      name: 'toolhost_http_sessions',
      help: 'Open MCP sessions held by this replica.',
      read: () => state.sessions.size,
    });
  return state;
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

/** Node's request listener: the probes, then the Host check, then the routes in order. */
function answerRequest(
  state: ServerState,
  routes: readonly RouteHandler[],
  hostAllowed: (host: string | undefined) => boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const trustedHost = hostAllowed(req.headers.host);
    // A balancer's probes name the replica's own address: answered whatever the Host, with
    // the status alone where the Host is not one of ours.
    if (answerProbe(req, res, state, trustedHost)) return;
    if (!trustedHost && !scrapeByAddress(req, state)) {
      return jsonRpcError(res, 403, `Host ${req.headers.host ?? '(none)'} is not allowed`);
    }
    dispatch(routes, req, res).catch((e: unknown) => {
      // A client that hung up before its body was read in full (a page's form, a token request)
      // failed nothing of the server's, and there is no one left to answer.
      if (leftMidBody(req, e))
        return state.options.logger?.debug(
          { path: req.url?.split('?')[0] },
          'the client left before its request was read',
        );
      state.options.logger?.error({ err: (e as Error).message }, 'request failed');
      jsonRpcError(res, 500, 'Internal error', { code: -32603 });
    });
  };
}

/** Whether `e` is the read of a request body the client broke off (Node's "aborted"). */
function leftMidBody(req: IncomingMessage, e: unknown): boolean {
  return !req.complete && (e as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET';
}

async function dispatch(
  routes: readonly RouteHandler[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = targetOf(req.url ?? '/');
  if (!url) {
    req.resume();
    return jsonRpcError(res, 400, 'Bad request: the request target is not a path');
  }
  for (const route of routes) if (await route(req, res, url)) return;
}

/**
 * The request target as a URL. A path is read as a path: resolved against a base, `//x/mcp` or
 * `/\` would be a reference to another host (`x`, or none, which throws). Anything else
 * (absolute-form, `*`) as a URL, undefined where it is none.
 */
function targetOf(target: string): URL | undefined {
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target, 'http://localhost');
  } catch {
    return undefined;
  }
}

/** The handle the embedder stops the server with. */
function serverHandle(
  httpServer: Server,
  state: ServerState,
  phase: ServerPhase,
  address: { url: string; port: number },
): HttpServerHandle {
  const { options } = state;
  return {
    ...address,
    async beginStopping({ drainDelaySeconds = options.drainDelaySeconds } = {}) {
      phase.stopping = true;
      if (drainDelaySeconds > 0) await new Promise((r) => setTimeout(r, drainDelaySeconds * 1000));
      phase.refusing = true;
    },
    async close() {
      phase.draining = true;
      await drainAndClose(httpServer, state.exchanges, state.sessions, options.drainSeconds ?? 5);
      await state.mcpState.warming;
    },
  };
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
