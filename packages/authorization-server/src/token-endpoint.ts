import type { IncomingMessage, ServerResponse } from 'node:http';
import { signAccessToken } from './access-tokens.js';
import { resourceOf } from './authorize.js';
import { authenticateClient } from './client-authentication.js';
import type { Client } from './clients.js';
import { accessTokenSeconds, type Context, isFirstPartyClient } from './context.js';
import type { CodeRecord, Grant } from './grants.js';
import { BadRequest, OPEN_CORS, readForm, sendJson } from './http-util.js';
import { TOO_MANY_AUTHORIZATIONS } from './person-bounds.js';
import { s256 } from './secrets.js';
import type { SigningKey } from './signing-keys.js';

type Issue = (grant: Grant, scopes: readonly string[], refreshToken: string | undefined) => Promise<void>;

/**
 * The token endpoint: authorization code (PKCE S256) and refresh token grants, each only to a
 * client registered for it (`unauthorized_client`, RFC 6749 §5.2, before anything is spent).
 */
export async function answerToken(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Context,
  key: () => Promise<SigningKey>,
): Promise<void> {
  const form = await readForm(req);
  const client = await authenticateClient(req, form, ctx);
  const grantType = form.get('grant_type');
  const lifetime = accessTokenSeconds(ctx.options);
  const issue: Issue = async (grant, scopes, refreshToken) => {
    const accessToken = await signAccessToken(await key(), ctx.issuer(), grant, scopes, lifetime);
    // What keeps a registration (a person let it in). Best effort: the grant is written, and a
    // failure here must not turn its tokens into a retry that reads as reuse. Before the answer,
    // not after it: a client may stop the server next (a restart), and a write begun after the
    // answer then lands over what the next process wrote. One read, and a write once a day.
    await ctx.clients.issuedTokens(client).catch(() => {});
    sendJson(
      res,
      200,
      {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: lifetime,
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
        scope: scopes.join(' '),
      },
      OPEN_CORS,
    );
  };
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
    throw new BadRequest(
      400,
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    );
  if (!client.grantTypes.includes(grantType))
    throw new BadRequest(
      400,
      'unauthorized_client',
      `This client is not registered for the ${grantType} grant (its grant_types: ${client.grantTypes.join(', ') || 'none'})`,
    );
  if (grantType === 'authorization_code') return exchangeCode(ctx, form, client, issue);
  return refresh(ctx, form, client, issue);
}

/**
 * The authorization code grant: the code checked, then spent by its first presentation, right
 * or wrong (by the grant it starts, or by the refusal), but for one refused for its sign-in
 * alone, which another replica may yet vouch for.
 */
async function exchangeCode(ctx: Context, form: Map<string, string>, client: Client, issue: Issue) {
  const code = form.get('code');
  const verifier = form.get('code_verifier');
  if (!code) throw new BadRequest(400, 'invalid_request', 'code is required');
  if (!verifier) throw new BadRequest(400, 'invalid_request', 'code_verifier is required (PKCE)');
  const presented = await ctx.grants.presentCode(code);
  if (!presented) throw new BadRequest(400, 'invalid_grant', 'The code is unknown, expired or already used');
  const refused = codeRefusal(ctx, form, client, presented.record, verifier);
  if (refused) {
    await ctx.grants.refuse(presented);
    throw refused;
  }
  requireSignIn(ctx, presented.record);
  // The person's completed authorizations, counted as this one completes: the first-party
  // pages' sign-ins do not count (none can be started from another site, authorize.ts).
  const person = presented.record.subject;
  const counted = !isFirstPartyClient(ctx.options, client.clientId);
  if (counted && !(await ctx.people.countAuthorization(person))) {
    await ctx.grants.refuse(presented);
    throw new BadRequest(400, 'invalid_grant', TOO_MANY_AUTHORIZATIONS);
  }
  let started: Awaited<ReturnType<Context['grants']['start']>>;
  try {
    // A refresh token only for a client registered for the refresh grant (RFC 6749 §6, RFC 7591 §2).
    started = await ctx.grants.start(presented, client.grantTypes.includes('refresh_token'));
  } finally {
    if (counted && !started) await ctx.people.uncount(person);
  }
  // Spent meanwhile by another presentation: a replay, which revoked what that one started.
  if (!started) throw new BadRequest(400, 'invalid_grant', 'The code is unknown, expired or already used');
  const { grant, refreshToken } = started;
  const { subject, signedInWith } = grant;
  ctx.emit({ type: 'token_issued', clientId: client.clientId, subject, signedInWith });
  return issue(grant, grant.scopes, refreshToken);
}

/** Why this request may not exchange the code it presents, if it may not. */
function codeRefusal(
  ctx: Context,
  form: Map<string, string>,
  client: Client,
  record: CodeRecord,
  verifier: string,
): BadRequest | undefined {
  if (record.clientId !== client.clientId)
    return new BadRequest(400, 'invalid_grant', 'The code was issued to another client');
  const redirectUri = form.get('redirect_uri');
  // The redirect URI of the authorization request, exactly (PKCE binds the rest).
  if ((redirectUri ?? record.redirectUri) !== record.redirectUri)
    return new BadRequest(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== record.codeChallenge)
    return new BadRequest(400, 'invalid_grant', 'code_verifier does not match the code challenge');
  const resource = form.get('resource');
  if (resource !== undefined && resourceOf(ctx, resource) !== record.resource)
    return new BadRequest(400, 'invalid_target', 'The resource differs from the authorization request');
  return undefined;
}

/**
 * Refuses a code or grant whose sign-in no longer stands, leaving it unspent and unrevoked:
 * every use checks again, and one replica whose config lags the others' (a rolling restart)
 * must end nothing for good. A replica with no access-token sign-in cannot vouch for one made
 * with a token either way: it answers 503, for the client to retry where one can.
 */
function requireSignIn(ctx: Context, made: { subject: string; binding?: string }): void {
  const standing = ctx.bindings.standing(made.subject, made.binding);
  if (standing === 'ended')
    throw new BadRequest(
      400,
      'invalid_grant',
      'The access token the person signed in with was replaced or removed; they must sign in again',
    );
  if (standing === 'unvouched')
    throw new BadRequest(
      503,
      'temporarily_unavailable',
      'This server cannot check the access token the person signed in with; try again',
      { 'retry-after': '1' },
    );
}

/** The refresh token grant: checked first, then spent and rotated. */
async function refresh(ctx: Context, form: Map<string, string>, client: Client, issue: Issue) {
  const refreshToken = form.get('refresh_token');
  if (!refreshToken) throw new BadRequest(400, 'invalid_request', 'refresh_token is required');
  // Checked before the token is spent: a refresh refused for its scope or resource must leave
  // the client its grant, not a spent token whose next use would read as reuse and revoke it.
  const presented = await ctx.grants.presentRefresh(refreshToken, client.clientId);
  const scopes = presented ? await refreshScopes(ctx, form, client, presented.grant) : [];
  // A bare hash kept by a version before is keyed as the grant moves on, not kept for good.
  const rebound = presented && ctx.bindings.renewed(presented.grant.subject, presented.grant.binding);
  const next = presented ? await ctx.grants.rotate(presented, rebound) : undefined;
  if (!presented || next === undefined) {
    ctx.emit({
      type: 'refused',
      clientId: client.clientId,
      error: 'invalid_grant',
      reason: 'refresh token spent, revoked or unknown',
    });
    throw new BadRequest(
      400,
      'invalid_grant',
      'The refresh token is unknown, expired, revoked or already used',
    );
  }
  const { subject, signedInWith } = presented.grant;
  ctx.emit({ type: 'token_refreshed', clientId: client.clientId, subject, signedInWith });
  return issue(presented.grant, scopes, next);
}

/** The scopes a refresh of this grant asks for, or why it is refused (nothing spent yet). */
async function refreshScopes(
  ctx: Context,
  form: Map<string, string>,
  client: Client,
  grant: Grant,
): Promise<string[]> {
  if (grant.clientId !== client.clientId) {
    // Another client holding this grant's refresh token: it leaked.
    await ctx.grants.revoke(grant.id);
    throw new BadRequest(400, 'invalid_grant', 'The refresh token was issued to another client');
  }
  requireSignIn(ctx, grant);
  const resource = form.get('resource');
  if (resource !== undefined && resourceOf(ctx, resource) !== grant.resource)
    throw new BadRequest(400, 'invalid_target', 'The resource differs from the grant');
  // A scope of spaces alone names none: as if left out, not a token for nothing.
  const asked = [...new Set(form.get('scope')?.split(' ').filter(Boolean))];
  const scopes = asked.length > 0 ? asked : grant.scopes;
  if (scopes.some((s) => !grant.scopes.includes(s)))
    throw new BadRequest(400, 'invalid_scope', 'A refresh may ask for the granted scopes or fewer');
  return scopes;
}
