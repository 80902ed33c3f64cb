import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AccessTokenVerification, verifyAccessToken } from './access-tokens.js';
import { BrowserFlow } from './browser-flow.js';
import { callerAddressBehind, callerBucket } from './caller.js';
import { ClientResolver } from './clients.js';
import { accessTokenSeconds, type Context, issuerIsLoopback, PATHS } from './context.js';
import { GRANTS_KEPT } from './grant-lists.js';
import { Grants } from './grants.js';
import { BadRequest, OPEN_CORS, sendJson, sendOAuthError } from './http-util.js';
import type { AuthorizationEvent, AuthorizationServerOptions } from './options.js';
import { sendErrorPage } from './pages.js';
import { PersonBounds } from './person-bounds.js';
import { registerClient } from './registration.js';
import { answerRevocation } from './revocation.js';
import { SignInBindings, type SignInStanding } from './sign-in-binding.js';
import { keySetOf, loadSigningKey, SIGNING_ALGORITHM, type SigningKey } from './signing-keys.js';
import { answerToken } from './token-endpoint.js';

export interface AuthorizationServer {
  /** Answers the server's paths (metadata, endpoints, pages); false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, url?: URL): Promise<boolean>;
  /** RFC 8414 metadata, as served. */
  metadata(): Record<string, unknown>;
  /** The public keys access tokens are signed with (the JWKS). */
  keySet(): Promise<{ keys: Record<string, unknown>[] }>;
  /**
   * Checks an access token issued here for one of the resources: signature, issuer, audience,
   * expiry, and that its grant was not revoked (answers cached for a few seconds).
   */
  verify(token: string): Promise<AccessTokenVerification>;
  readonly issuer: string;
}

const GRANT_CACHE_MS = 5_000;

/** Why a grant the person did not revoke ended: newer ones pushed it out (grant-lists.ts). */
const GRANT_PUSHED_OUT = `the person authorized this client again more than ${GRANTS_KEPT} times since`;

/** The server's context: its options, store, clients and grants, and where it is. */
function contextOf(options: AuthorizationServerOptions): Context {
  const store = options.store;
  const issuer = () =>
    (typeof options.issuer === 'function' ? options.issuer() : options.issuer).replace(/\/$/, '');
  const resources = () => (typeof options.resources === 'function' ? options.resources() : options.resources);
  const loopback = () => issuerIsLoopback(issuer());
  const emit = (event: AuthorizationEvent) => options.onEvent?.(event);
  const lifetimes = {
    codeSeconds: 60,
    accessSeconds: accessTokenSeconds(options),
    refreshSeconds: options.refreshTokenSeconds ?? 30 * 86_400,
  };
  return {
    options,
    store,
    clients: clientsOf(options, loopback),
    grants: new Grants(store, lifetimes, ({ clientId, subject, signedInWith }) =>
      emit({ type: 'grant_revoked', clientId, subject, reason: GRANT_PUSHED_OUT, signedInWith }),
    ),
    bindings: new SignInBindings(options.signIn, options.sealKey),
    people: new PersonBounds(store),
    issuer,
    resources,
    endpoint: (path) => `${issuer()}${path}`,
    loopback,
    scopeNames: () => options.scopes.map((s) => s.name),
    emit,
    caller: callerOf(options),
  };
}

/** Who a request counts against in the bounds per address. */
function callerOf(options: AuthorizationServerOptions): (req: IncomingMessage) => string {
  const address = options.callerAddress ?? callerAddressBehind(options.trustedProxies ?? { trusted: [] });
  return (req) => callerBucket(address(req));
}

/** How long a registered client is kept after its last use (`registration.clientDays`). */
const registeredClientSeconds = (options: AuthorizationServerOptions) =>
  (options.registration?.clientDays ?? 90) * 86_400;

/** Who the clients are: registered here, first-party, or named by a metadata document URL. */
function clientsOf(options: AuthorizationServerOptions, loopback: () => boolean): ClientResolver {
  return new ClientResolver({
    store: options.store,
    metadataDocuments: options.clientIdMetadataDocuments !== false,
    fetchLimits: {
      get allowLoopback() {
        return loopback();
      },
      timeoutMs: options.metadataFetch?.timeoutMs ?? 5_000,
      maxBytes: options.metadataFetch?.maxBytes ?? 10 * 1024,
      ...(options.metadataFetch?.ca ? { ca: options.metadataFetch.ca } : {}),
    },
    defaultCacheSeconds: 300,
    registeredClientSeconds: registeredClientSeconds(options),
    firstParty: () =>
      (options.firstPartyClients ?? []).map((c) => ({
        clientId: c.clientId,
        redirectUris: [...(typeof c.redirectUris === 'function' ? c.redirectUris() : c.redirectUris)],
        ...(c.clientName ? { clientName: c.clientName } : {}),
        tokenEndpointAuthMethod: 'none' as const,
        source: 'registration' as const,
        grantTypes: [...(c.grantTypes ?? ['authorization_code' as const])],
      })),
  });
}

/** How often a replica looks again at the signing key its store holds. */
const KEY_CHECK_MS = 60_000;

/**
 * The signing key, loaded once (and again after a failed load), then looked at again each
 * minute: where the store lost it (Redis restarted empty, a failover before it was copied), a
 * replica starting would make another, and replicas would refuse each other's tokens until all
 * restarted. The key held is put back, or the one another replica put back is taken up; with
 * the store away, the key held goes on.
 */
function signingKeyOf(options: AuthorizationServerOptions): () => Promise<SigningKey> {
  let signing: Promise<SigningKey> | undefined;
  let checkedAt = 0;
  return () => {
    if (!signing) {
      signing = loadSigningKey(options.store, options.sealKey);
      signing.catch(() => {
        signing = undefined;
      });
      checkedAt = Date.now();
    } else if (Date.now() - checkedAt >= KEY_CHECK_MS) {
      checkedAt = Date.now();
      signing = signing.then((held) =>
        loadSigningKey(options.store, options.sealKey, held).catch(() => held),
      );
    }
    return signing;
  };
}

const STANDING_REFUSALS: Record<SignInStanding, string | undefined> = {
  holds: undefined,
  ended: 'the access token its grant was signed in with was replaced or removed',
  unvouched: 'this server cannot check the access token its grant was signed in with',
};

/**
 * Why an access token's grant may not be used, if it may not: revoked, or made by a sign-in
 * that no longer stands (an access token its person no longer holds) or that this server
 * cannot vouch for (it has no access-token sign-in); only refused, never revoked, as a
 * replica whose config lags another's must end nothing for good. Each answer kept a few seconds.
 */
function grantRefusal(ctx: Context): (grantId: string) => Promise<string | undefined> {
  const answers = new Map<string, { refusal: string | undefined; until: number }>();
  return async (grantId) => {
    const cached = answers.get(grantId);
    if (cached && cached.until > Date.now()) return cached.refusal;
    const grant = await ctx.grants.grant(grantId);
    const refusal = grant
      ? STANDING_REFUSALS[ctx.bindings.standing(grant.subject, grant.binding)]
      : 'the grant of this token was revoked';
    if (answers.size > 10_000) answers.clear();
    answers.set(grantId, { refusal, until: Date.now() + GRANT_CACHE_MS });
    return refusal;
  };
}

/** RFC 8414 metadata. */
function metadataOf(ctx: Context, registration: boolean): Record<string, unknown> {
  return {
    issuer: ctx.issuer(),
    authorization_endpoint: ctx.endpoint(PATHS.authorize),
    token_endpoint: ctx.endpoint(PATHS.token),
    ...(registration ? { registration_endpoint: ctx.endpoint(PATHS.register) } : {}),
    revocation_endpoint: ctx.endpoint(PATHS.revoke),
    jwks_uri: ctx.endpoint(PATHS.jwks),
    scopes_supported: ctx.scopeNames(),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    client_id_metadata_document_supported: ctx.options.clientIdMetadataDocuments !== false,
    authorization_response_iss_parameter_supported: true,
    access_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
  };
}

type Endpoint = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The POST endpoints: token, revocation and (where enabled) registration. */
function endpointsOf(
  ctx: Context,
  key: () => Promise<SigningKey>,
  verify: (token: string) => Promise<AccessTokenVerification>,
  registration: boolean,
): Record<string, Endpoint> {
  const { options, store } = ctx;
  const register: Endpoint = async (req, res) => {
    const answer = await registerClient(req, ctx.caller(req), store, {
      perAddress: options.registration?.perAddress ?? 20,
      total: options.registration?.total ?? 500,
      windowSeconds: options.registration?.windowSeconds ?? 3600,
      clientSeconds: registeredClientSeconds(options),
    });
    ctx.emit({ type: 'client_registered', clientId: String(answer.client_id) });
    sendJson(res, 201, answer, OPEN_CORS);
  };
  return {
    [PATHS.token]: (req, res) => answerToken(req, res, ctx, key),
    [PATHS.revoke]: (req, res) =>
      answerRevocation(req, res, ctx, async (token) => {
        const checked = await verify(token);
        return checked.ok ? checked.token.grantId : undefined;
      }),
    ...(registration ? { [PATHS.register]: register } : {}),
  };
}

/** The path under the issuer: the issuer's own path (behind a proxy) taken off where present. */
function localPath(issuer: string, pathname: string): string {
  const base = new URL(issuer).pathname.replace(/\/$/, '');
  if (pathname === `${PATHS.metadata}${base}`) return PATHS.metadata;
  return base && pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : pathname;
}

/** The host's own OAuth 2.1 authorization server for MCP clients. */
export async function createAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const ctx = contextOf(options);
  const key = signingKeyOf(options);
  await key();
  const flow = new BrowserFlow(ctx);
  const registration = options.dynamicRegistration !== false;
  const refusal = grantRefusal(ctx);
  const verify = async (token: string) =>
    verifyAccessToken(token, await key(), { issuer: ctx.issuer(), audiences: ctx.resources() }, refusal);
  const endpoints = endpointsOf(ctx, key, verify, registration);
  const metadata = () => metadataOf(ctx, registration);
  const served = { ctx, key, endpoints, metadata };

  async function handle(req: IncomingMessage, res: ServerResponse, given?: URL): Promise<boolean> {
    const url = given ?? new URL(req.url ?? '/', 'http://localhost');
    const path = localPath(ctx.issuer(), url.pathname);
    if (path === PATHS.metadata || path === PATHS.jwks || path in endpoints) {
      await answerEndpoint(served, req, res, path);
      return true;
    }
    try {
      return await flow.handle(req, res, url, path);
    } catch (e) {
      if (!(e instanceof BadRequest)) throw e;
      sendErrorPage(res, e.status, e.message, e.headers);
      return true;
    }
  }

  return {
    handle,
    metadata,
    keySet: async () => keySetOf(await key()) as { keys: Record<string, unknown>[] },
    verify,
    get issuer() {
      return ctx.issuer();
    },
  };
}

/** Answers a metadata, key set or POST endpoint path (CORS preflight, GET documents, POSTs). */
async function answerEndpoint(
  served: {
    ctx: Context;
    key: () => Promise<SigningKey>;
    endpoints: Record<string, Endpoint>;
    metadata: () => Record<string, unknown>;
  },
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const get = req.method === 'GET' || req.method === 'HEAD';
  if (req.method === 'OPTIONS') {
    res.writeHead(204, OPEN_CORS);
    res.end();
    return;
  }
  if (path === PATHS.metadata && get) {
    sendJson(res, 200, served.metadata(), { ...OPEN_CORS, 'cache-control': 'public, max-age=300' });
    return;
  }
  if (path === PATHS.jwks && get) {
    sendJson(res, 200, keySetOf(await served.key()), {
      ...OPEN_CORS,
      'cache-control': 'public, max-age=300',
    });
    return;
  }
  const endpoint = served.endpoints[path];
  if (!endpoint || req.method !== 'POST') {
    sendOAuthError(res, 405, 'invalid_request', `${req.method} is not allowed here`, {
      allow: endpoint ? 'POST, OPTIONS' : 'GET, OPTIONS',
      ...OPEN_CORS,
    });
    return;
  }
  try {
    await endpoint(req, res);
  } catch (e) {
    if (!(e instanceof BadRequest)) throw e;
    served.ctx.emit({ type: 'refused', error: e.error, reason: e.message });
    sendOAuthError(res, e.status, e.error, e.message, { ...OPEN_CORS, ...e.headers });
  }
}
