import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrontDoor, FrontDoorSettings } from '@toolhost/front-door/front-door';
import { authorizationConfigOf } from '../auth/front-door/front-door-config.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { REVISION_SERVER_VERSIONS } from '../mcp/protocol-eras.js';
import type { JSONRPCMessage } from '../mcp/sdk.js';
import type { ReplicaSessions } from '../replicas.js';
import type { ConnectionsPageOptions } from './connections-page.js';
import type { FrontDoorSignIn } from './front-door-sign-in.js';
import { answerHome } from './home-page.js';
import { mcpCors } from './mcp-cors.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { metricsRoute } from './metrics-route.js';
import { ModernRequests } from './modern-requests.js';
import { oauthRoutes } from './oauth-routes.js';
import type { OwnAuthorizationServer } from './own-authorization-server.js';
import { CONNECTIONS_PATH, isConnectionsPath, PAGES_CALLBACK_PATH } from './page-paths.js';
import { jsonRpcError } from './request-guards.js';
import type { RouteHandler, ServerState } from './server-state.js';
import { deliverPublished } from './stored-notices.js';
import { toolLookupOf } from './tool-lookup.js';

/**
 * The server's routes, tried in order: MCP on its path (first: every tool call comes this way,
 * and need not try the pages), health, the home page, the OAuth pages, metrics, the
 * connections page, then 404 for any other path.
 */
export async function serverRoutes(state: ServerState): Promise<RouteHandler[]> {
  const { host, options, accessTokens, shared } = state;
  const log = options.logger;
  const secureCookies = () => state.base().startsWith('https:');
  const pagesSignIn = options.mcp === false ? undefined : await pagesSignInFor(state, secureCookies);
  // Where OAuth alone is the door, a vendor link is never bound to whoever opens it first.
  const signInFirst = pagesSignIn !== undefined || (state.pageTokens.enabled && !accessTokens.enabled);
  const sharedSessions =
    options.mcp === false ? undefined : shared?.sessions(options.sessionIdleSeconds * 1000);
  const oauth = oauthRoutesOf(state, signInFirst, secureCookies, sharedSessions);
  const connections = connectionsRoute(state, {
    host,
    accessTokens: state.pageTokens,
    ...(log ? { logger: log } : {}),
    secureCookies,
    ...(pagesSignIn ? { frontDoor: pagesSignIn } : {}),
    ...(signInFirst ? { bindFlow: oauth.bindSignedIn } : {}),
  });
  const mcp = options.mcp === false ? undefined : await mcpRoute(state, sharedSessions);
  const ownServer = mcp ? await ownAuthorizationServer(state) : undefined;
  return [
    (req, res, url) => url.pathname === options.path && mcp !== undefined && mcp(req, res, url),
    ...(ownServer ? [ownServer] : []),
    (req, res, url) => answerResourceMetadata(state.frontDoor(), req, res, url),
    (req, res, url) =>
      url.pathname === '/' &&
      (req.method === 'GET' || req.method === 'HEAD') &&
      answerHome(res, {
        host,
        base: state.base(),
        mcpPath: mcp ? options.path : undefined,
        ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
        showFigures: !state.pageTokens.enabled,
      }),
    oauth.handle,
    metricsRoute({ host, accessTokens: state.pageTokens, metricsToken: options.metricsToken }).handle,
    connections,
    (_req, res) => {
      jsonRpcError(res, 404, 'Not found');
      return true;
    },
  ];
}

/**
 * How `/connections` signs people in where OAuth is configured (mode `host`, or an identity
 * provider with a client for the pages): its modules are loaded only then.
 */
async function pagesSignInFor(
  state: ServerState,
  secureCookies: () => boolean,
): Promise<FrontDoorSignIn | undefined> {
  const { host } = state;
  if (
    host.config.http.authorization?.mode !== 'host' &&
    !authorizationConfigOf(host.config, host.serving.env)?.pagesClient
  )
    return undefined;
  const { pagesSignInOf } = await import('./pages-sign-in.js');
  return pagesSignInOf(state, secureCookies, state.shared?.signingKey('connections-sign-in-state'));
}

/**
 * `/connections` and the pages under it. The page's modules load at its first request: most
 * hosts (a desktop client's, a team's behind a balancer) never show it, and a start need not
 * wait for them.
 */
function connectionsRoute(
  state: ServerState,
  options: Omit<ConnectionsPageOptions, 'signingKey' | 'signedOut'>,
): RouteHandler {
  let page: Promise<RouteHandler> | undefined;
  const open = async (): Promise<RouteHandler> => {
    const [{ connectionsPage }, { RedisStateStore }] = await Promise.all([
      import('./connections-page.js'),
      import('@toolhost/authorization-server/redis-state-store'),
    ]);
    const { shared } = state;
    return connectionsPage({
      ...options,
      ...(shared
        ? {
            signingKey: shared.signingKey('connections-cookie'),
            signedOut: new RedisStateStore(shared.redis, ''),
          }
        : {}),
    }).handle;
  };
  return async (req, res, url) => {
    if (!isConnectionsPath(url.pathname)) return false;
    page ??= open();
    return (await page)(req, res, url);
  };
}

/**
 * The host's own authorization server, when `http.authorization.mode` is `host`: its module is
 * loaded only then, and its issuer follows the URL this server is reached at.
 */
async function ownAuthorizationServer(state: ServerState): Promise<RouteHandler | undefined> {
  if (state.host.config.http.authorization?.mode !== 'host') return undefined;
  const { openOwnAuthorizationServer } = await import('./own-authorization-server.js');
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

/** The OAuth pages (start and callback of each provider's sign-in). */
function oauthRoutesOf(
  state: ServerState,
  signInFirst: boolean,
  secureCookies: () => boolean,
  sharedSessions: ReplicaSessions | undefined,
) {
  const { host, options, accessTokens, shared } = state;
  const log = options.logger;
  return oauthRoutes({
    providers: host.oauthProviders,
    ...(sharedSessions ? { completed: (flowId: string) => sharedSessions.completed(flowId) } : {}),
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
}

/** What other replicas tell this one about the sessions it holds. */
async function followReplicas(state: ServerState, sharedSessions?: ReplicaSessions): Promise<void> {
  // A session its client ended on another replica ends here too: heard of, or, where this
  // replica missed the message, found without its record once subscribed again.
  await sharedSessions?.onClosed(
    (id) =>
      void state.sessions
        .get(id)
        ?.server.close()
        .catch(() => {}),
    () => state.sessions.ids(),
  );
  // The client's answers to this replica's requests and cancellations of its calls, wherever they landed.
  await sharedSessions?.onAnswers(
    (id, messages) => {
      const transport = state.sessions.get(id)?.transport;
      for (const message of messages) transport?.deliver(message as JSONRPCMessage);
    },
    () => state.sessions.ids(),
  );
  // A completion notice for a session whose event stream is open here, from any replica:
  // taken from the store first, so that it is sent once; otherwise it waits there for the
  // replica the client opens its stream on next.
  await sharedSessions?.onCompletion(
    (id, elicitationId) => {
      const session = state.sessions.get(id);
      if (session?.transport.streaming) void deliverPublished(session, sharedSessions, elicitationId);
    },
    () => state.sessions.ids(),
  );
}

/** The MCP path (Streamable HTTP), with the replicas' shared sessions where there are some. */
async function mcpRoute(state: ServerState, sharedSessions?: ReplicaSessions): Promise<RouteHandler> {
  const { host, options } = state;
  await followReplicas(state, sharedSessions);
  // A session closed at a cap ends everywhere, as at its client's DELETE: were its record kept,
  // any replica would restore it, and a client opening session after session would fill the
  // shared store however low the caps.
  if (sharedSessions) state.sessions.onCapEviction = (id) => void sharedSessions.remove(id).catch(() => {});
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
  const crossOrigin = await mcpCors(options.allowedOrigins);
  return async (req, res, url) => {
    if (!(await crossOrigin(req, res))) await mcp.handle(req, res, url);
    return true;
  };
}

/** The front door of the host's own authorization server: its in-process token check, no HTTP round trip. */
export function ownServerDoor(own: OwnAuthorizationServer | undefined): FrontDoorSettings | undefined {
  if (!own) return undefined;
  return { authorizationServers: [own.issuer()], verifier: () => own.verifier };
}

/** `/.well-known/oauth-protected-resource[/mcp]` (RFC 9728), where the front door is configured. */
function answerResourceMetadata(
  door: FrontDoor | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): boolean {
  if (!door?.servesMetadataAt(url.pathname)) return false;
  door.answerMetadata(req, res);
  return true;
}
