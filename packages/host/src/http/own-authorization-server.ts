import type { AuthorizationEvent, AuthorizationServer, StateStore } from '@toolhost/authorization-server';
import { ToolError } from '@toolhost/core';
import { FileLock } from '@toolhost/credentials';
import type { TokenVerifier } from '@toolhost/front-door';
import type { AccessTokens } from '../auth/access-tokens.js';
import { HOST_SCOPES, SCOPE_DESCRIPTIONS } from '../auth/front-door/scopes.js';
import { commaList } from '../config/overrides.js';
import type { Host } from '../host-api.js';
import type { Logger } from '../logger.js';
import { PAGES_CLIENT_ID } from './front-door-sign-in.js';

/** The host's own authorization server as the HTTP server mounts it, and its tokens' check. */
export interface OwnAuthorizationServer {
  /** Answers the server's paths (metadata, endpoints, sign-in and consent pages); false for others. */
  handle(
    req: Parameters<AuthorizationServer['handle']>[0],
    res: Parameters<AuthorizationServer['handle']>[1],
    url: URL,
  ): Promise<boolean>;
  /** Checks its access tokens for the MCP endpoint: signature, issuer, audience, expiry, revocation. */
  readonly verifier: TokenVerifier;
  /** Its issuer identifier (the URL the host is reached at). */
  issuer(): string;
}

/**
 * Opens the host's own authorization server (`http.authorization.mode` = `host`). Its package
 * is imported here, only when configured. Its state goes where the host keeps the rest: Redis
 * for replicas (codes redeemed once across the fleet, the signing key shared), else a file in
 * the encrypted data directory, else memory (grants lost at restart).
 */
export async function openOwnAuthorizationServer(
  host: Host,
  options: {
    base: () => string;
    mcpPath: string;
    accessTokens: AccessTokens;
    logger?: Logger;
    /** The host's pages' redirect URI: they sign in as a built-in client, with no consent page. */
    pagesRedirectUri?: () => string;
  },
): Promise<OwnAuthorizationServer> {
  const settings = host.config.http.authorization?.server ?? {};
  const signIn = signInChoices(settings.signIn ?? {}, host.serving.env, options.accessTokens);
  const trustedProxies = commaList(host.serving.env.TOOLHOST_TRUSTED_PROXIES ?? '');
  const as = await import('@toolhost/authorization-server');
  const server = await as.createAuthorizationServer({
    issuer: options.base,
    resources: () => [`${options.base()}${options.mcpPath}`],
    scopes: HOST_SCOPES.map((name) => ({ name, description: SCOPE_DESCRIPTIONS[name] })),
    ...stateStore(as, host.serving, options.logger),
    signIn,
    dynamicRegistration: settings.dynamicRegistration !== false,
    clientIdMetadataDocuments: settings.clientIdMetadataDocuments !== false,
    ...(settings.trustedClients ? { trustedClients: settings.trustedClients } : {}),
    // The host's own pages: a person signing in to the host itself has nothing to allow; the
    // token is dropped once read, so they are given no refresh token (the default grants).
    ...(options.pagesRedirectUri
      ? {
          firstPartyClients: [
            {
              clientId: PAGES_CLIENT_ID,
              redirectUris: () => [options.pagesRedirectUri!()],
              clientName: 'Connections',
            },
          ],
        }
      : {}),
    accessTokenSeconds: settings.accessTokenSeconds ?? 600,
    refreshTokenSeconds: (settings.refreshTokenDays ?? 30) * 86_400,
    onEvent: auditEvents(host.serving.auditLog, options.logger),
    trustedProxies: {
      trusted: trustedProxies.length ? trustedProxies : (host.config.http.trustedProxies ?? []),
      setting: 'http.trustedProxies',
      warn: (message) => options.logger?.warn(message),
    },
  });
  return {
    handle: (req, res, url) => server.handle(req, res, url).catch((e: unknown) => storeAway(e, res)),
    verifier: { verify: (token) => server.verify(token) },
    issuer: () => server.issuer,
  };
}

/**
 * A request the server could not complete because its shared store did not take a write (Redis
 * away, or short of `store.replicaAcks` replicas): answered as OAuth says a server that is
 * briefly unable answers (503 `temporarily_unavailable`), for the client to try again; any
 * other failure goes on to the HTTP server's own answer.
 */
function storeAway(e: unknown, res: Parameters<AuthorizationServer['handle']>[1]): boolean {
  if (!ToolError.isInstance(e) || e.code !== 'store_unavailable' || res.headersSent) throw e;
  const body = JSON.stringify({ error: 'temporarily_unavailable', error_description: e.message });
  res.writeHead(503, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'retry-after': '1',
    // As the OAuth endpoints answer: a browser-based client must be able to read it.
    'access-control-allow-origin': '*',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
  return true;
}

type ServerSettings = NonNullable<NonNullable<Host['config']['http']['authorization']>['server']>;
type AuthorizationServerModule = typeof import('@toolhost/authorization-server');

/** Who may sign in: the team's OpenID provider, an access token's holder, or on loopback the local user. */
function signInChoices(
  signIn: NonNullable<ServerSettings['signIn']>,
  env: Host['serving']['env'],
  accessTokens: AccessTokens,
) {
  const byAccessToken = signIn.accessTokens !== false && accessTokens.enabled;
  if (!signIn.oidc && !byAccessToken && !signIn.localUser) {
    throw new Error(
      "http.authorization.mode is 'host' but nobody could sign in: set http.authorization.server.signIn.oidc (your OpenID provider), give people access tokens (http.accessTokens or TOOLHOST_ACCESS_TOKENS), or on a loopback host signIn.localUser",
    );
  }
  const oidc = signIn.oidc;
  const clientSecret = env.TOOLHOST_SIGN_IN_CLIENT_SECRET ?? oidc?.clientSecret;
  return {
    // The tokens themselves: a grant made with one ends once it is replaced or its user removed,
    // every token removed included (left out, such grants would be unvouched: 503 for good).
    accessToken: {
      userForToken: (t: string) => accessTokens.userForToken(t),
      bindingOf: (u: string) => accessTokens.bindingOf(u),
      offered: byAccessToken,
    },
    ...(signIn.localUser ? { localUser: signIn.localUser } : {}),
    ...(oidc
      ? {
          upstream: {
            issuer: oidc.issuer,
            clientId: oidc.clientId,
            ...(clientSecret ? { clientSecret } : {}),
            ...(oidc.name ? { name: oidc.name } : {}),
            ...(oidc.userClaim ? { userClaim: oidc.userClaim } : {}),
            ...(oidc.allowedDomains ? { allowedDomains: oidc.allowedDomains } : {}),
            ...(oidc.allowedUsers ? { allowedUsers: oidc.allowedUsers } : {}),
          },
        }
      : {}),
  };
}

/** Where the server keeps its state, and the key it seals it with. */
function stateStore(
  as: AuthorizationServerModule,
  { replicas, dataDir }: Pick<Host['serving'], 'replicas' | 'dataDir'>,
  logger: Logger | undefined,
): { store: StateStore; sealKey?: Buffer } {
  if (replicas)
    return {
      store: new as.RedisStateStore(replicas.redis),
      sealKey: replicas.signingKey('authorization-server-signing-key'),
    };
  if (dataDir)
    return as.FileStateStore.inDataDirectory(dataDir.dataDir, dataDir.key, (at) => new FileLock(at), logger);
  logger?.warn(
    'TOOLHOST_TOKEN_KEY is not set: the authorization server keeps its grants in memory, and clients sign in again after a restart',
  );
  return { store: new as.MemoryStateStore() };
}

/** Sign-ins, consents, token issues, refreshes and revocations, to the audit log; refusals' reasons to the debug log. */
function auditEvents(auditLog: Host['serving']['auditLog'], logger: Logger | undefined) {
  return ({ type, subject: user, clientId: client, signedInWith, error, reason }: AuthorizationEvent) => {
    // What an event does not say is left out of its line (undefined, not written).
    const outcome = error ? `${type}:${error}` : type;
    auditLog?.record({ event: 'authorization', user, client, signedInWith, outcome });
    if (error) logger?.debug({ event: type, error, reason }, 'authorization refused');
  };
}
