import type { IncomingMessage, ServerResponse } from 'node:http';
import { countForCaller } from './caller-bounds.js';
import { type Client, ClientError } from './clients.js';
import { type Context, isFirstPartyClient, PATHS } from './context.js';
import { singleParameters } from './http-util.js';
import { escapeHtml, sendErrorPage, sendPage } from './pages.js';
import { type PendingRequest, PendingRequests, REQUEST_SECONDS } from './pending-requests.js';
import { redirectUriMatches, redirectUriProblem } from './redirect-uris.js';

/** An error told to the client at its redirect URI, with `state` and `iss` (RFC 9207). */
export function redirectWithError(
  res: ServerResponse,
  ctx: Context,
  target: { redirectUri: string; state?: string | undefined },
  error: string,
  description: string,
): void {
  const url = new URL(target.redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (target.state !== undefined) url.searchParams.set('state', target.state);
  url.searchParams.set('iss', ctx.issuer());
  res.writeHead(303, { location: url.href, 'cache-control': 'no-store' });
  res.end();
}

/** The resource a request names, compared as URLs; the default where it names none. */
export function resourceOf(ctx: Context, asked: string | undefined): string | undefined {
  const resources = ctx.resources();
  if (asked === undefined || asked === '') return resources[0];
  let normal: string;
  try {
    normal = new URL(asked).href;
  } catch {
    return undefined;
  }
  return resources.find((r) => r === asked || new URL(r).href === normal);
}

/** The scopes a request asks for, or undefined when one is unknown here. */
export function scopesOf(ctx: Context, asked: string | undefined): string[] | undefined {
  const known = ctx.scopeNames();
  if (asked === undefined || asked.trim() === '') return [...(ctx.options.defaultScopes ?? known)];
  const scopes = [...new Set(asked.split(' ').filter(Boolean))];
  return scopes.every((s) => known.includes(s)) ? scopes : undefined;
}

/**
 * The redirect URI asked for (or the only one registered), where it is the client's. A
 * first-party client's exactly: issued its code with no consent page, it does not get a
 * loopback URI's any port (RFC 8252), which would hand the code to whatever listens on another.
 * Another's only where registration would take it (`redirectUriProblem`): a URL parser drops a
 * tab or line break the client's own comparison at the token endpoint keeps, so the code would
 * go where it was never registered.
 */
function redirectUriOf(ctx: Context, client: Client, asked: string | undefined): string | undefined {
  const uri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (uri === undefined) return undefined;
  if (isFirstPartyClient(ctx.options, client.clientId))
    return client.redirectUris.includes(uri) ? uri : undefined;
  return redirectUriProblem(uri) === undefined && redirectUriMatches(uri, client.redirectUris)
    ? uri
    : undefined;
}

/**
 * A first-party client's authorization started by another site, which the browser tells
 * (Fetch Metadata): its code is issued with no consent page, under a SameSite=Lax cookie that
 * a cross-site navigation carries, so any site could otherwise make grants for whoever is
 * signed in. Refused with a link to go on from here, which a person can follow and a site cannot.
 */
function refusedCrossSite(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: Context,
  clientId: string,
): boolean {
  if (!isFirstPartyClient(ctx.options, clientId) || req.headers['sec-fetch-site'] !== 'cross-site')
    return false;
  const reason = 'a first-party sign-in started from another site';
  ctx.emit({ type: 'refused', clientId, error: 'access_denied', reason });
  const again = `${ctx.endpoint(PATHS.authorize)}${url.search}`;
  sendPage(
    res,
    403,
    'Continue signing in?',
    `<h1>Continue signing in?</h1><p>Another site sent you here to sign in. Continue only if you meant to.</p><p><a class="button" href="${escapeHtml(again)}">Continue</a></p>`,
  );
  return true;
}

/**
 * Counted before anything is read or fetched: each request is kept until its person finishes
 * or it expires, and anyone can open them, so a flood must meet a bound per address (and one
 * in all, where the addresses are many) before it costs the store or a metadata fetch.
 */
function countRequest(req: IncomingMessage, ctx: Context): Promise<void> {
  const limits = ctx.options.authorizationRequests;
  return countForCaller(ctx.store, ctx.caller(req), {
    prefix: 'authorize-count',
    perAddress: limits?.perAddress ?? 300,
    total: limits?.total ?? 20_000,
    windowSeconds: REQUEST_SECONDS,
    what: 'sign-ins started',
  });
}

/**
 * The authorization endpoint. The client and its redirect URI are checked first, and while
 * either is in doubt nothing is sent to the redirect URI (an open redirector would send the
 * browser wherever an attacker names); the rest of the request's errors go to the client.
 */
export async function startAuthorization(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: Context,
  browserOf: (req: IncomingMessage, res: ServerResponse) => string,
): Promise<PendingRequest | undefined> {
  await countRequest(req, ctx);
  let params: Map<string, string>;
  try {
    params = singleParameters(url.searchParams);
  } catch (e) {
    sendErrorPage(res, 400, (e as Error).message);
    return undefined;
  }
  const clientId = params.get('client_id');
  if (!clientId) {
    sendErrorPage(res, 400, 'The request names no client (client_id).');
    return undefined;
  }
  if (refusedCrossSite(req, res, url, ctx, clientId)) return undefined;
  let client: Client;
  try {
    client = await ctx.clients.resolve(clientId);
  } catch (e) {
    // A store that did not answer is no verdict on the client: the embedder answers it (503).
    if (!(e instanceof ClientError)) throw e;
    ctx.emit({ type: 'refused', clientId, error: 'invalid_client', reason: e.message });
    sendErrorPage(res, 400, e.message);
    return undefined;
  }
  const asked = params.get('redirect_uri');
  const redirectUri = redirectUriOf(ctx, client, asked);
  if (!redirectUri) {
    // Where registration would refuse it, why (it went nowhere: nothing of it is echoed).
    const problem = asked === undefined ? undefined : redirectUriProblem(asked);
    const reason = problem ? `redirect_uri ${problem}` : 'redirect_uri not registered';
    ctx.emit({ type: 'refused', clientId, error: 'invalid_request', reason });
    sendErrorPage(
      res,
      400,
      problem ? `The redirect URI ${problem}.` : 'The redirect URI is not one this client registered.',
    );
    return undefined;
  }
  const state = params.get('state');
  const checked = checkedRequest(ctx, client, params);
  if ('error' in checked) {
    ctx.emit({ type: 'refused', clientId, error: checked.error, reason: checked.description });
    redirectWithError(res, ctx, { redirectUri, state }, checked.error, checked.description);
    return undefined;
  }
  return new PendingRequests(ctx.store).open({
    clientId,
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    ...checked,
    browser: browserOf(req, res),
  });
}

/** The rest of a request whose client and redirect URI stand: what it asks for, or the error the client is told. */
function checkedRequest(
  ctx: Context,
  client: Client,
  params: Map<string, string>,
): { codeChallenge: string; scopes: string[]; resource: string } | { error: string; description: string } {
  const refuse = (error: string, description: string) => ({ error, description });
  if (params.get('response_type') !== 'code')
    return refuse('unsupported_response_type', 'Only response_type=code is supported');
  if (!client.grantTypes.includes('authorization_code'))
    return refuse(
      'unauthorized_client',
      'This client is not registered for the authorization code grant (its grant_types and response_types)',
    );
  const challenge = params.get('code_challenge');
  if (!challenge) return refuse('invalid_request', 'PKCE is required: send code_challenge');
  if (params.get('code_challenge_method') !== 'S256')
    return refuse('invalid_request', 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return refuse('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
  const scopes = scopesOf(ctx, params.get('scope'));
  if (!scopes) return refuse('invalid_scope', `Scopes known here: ${ctx.scopeNames().join(', ')}`);
  const resource = resourceOf(ctx, params.get('resource'));
  if (!resource) return refuse('invalid_target', 'The resource is not one this server issues tokens for');
  return { codeChallenge: challenge, scopes, resource };
}
