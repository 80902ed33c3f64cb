import { replacesStored, type StoredToken, sameGrant, type TokenStore, ToolError } from '@toolhost/core';
import * as oauth from 'oauth4webapi';
import type { AuthorizationServer } from './authorization-server.js';
import type { RefreshOutcome } from './token-refresh.js';

// What a refresh request that returned no token means for the refresh token it sent, and what
// the host does about it: a refresh token the vendor may have used is never sent again to a
// vendor that rotates them (it would take a second use for theft and revoke the grant).

/** What settling a refresh's outcome needs of its provider. */
export interface RefreshSettling {
  /** The provider id. */
  readonly id: string;
  readonly store: TokenStore;
  now(): number;
  /** Tells the host (metrics, the operator's log) of the outcome and why, never a token. */
  refreshed(outcome: RefreshOutcome, why: string): void;
}

/**
 * Why a refresh request returned no token. `invalid_grant`: the refresh token is dead.
 * `refused`: the token endpoint answered without taking it (another OAuth error, a 5xx other
 * than 502/504, a 429), so it is as good as before. `not_sent`: the request never left
 * (connection refused, name not found). `unanswered`: sent, and the answer never came or came
 * from a gateway that cannot say whether the vendor acted (502, 504), or was a 200 that could
 * not be read: the vendor may have used the refresh token.
 */
export interface Refusal {
  kind: 'invalid_grant' | 'refused' | 'not_sent' | 'unanswered';
  /** For the operator's log and the error: never a token. */
  detail: string;
}

/**
 * The `error` of a token endpoint's error answer, as the operator's log and the caller may read
 * it: an OAuth error code (RFC 6749's are lowercase words joined by underscores, and vendors'
 * own follow them). Anything else is not repeated: a vendor that writes a sentence there may
 * echo what it was sent, the refresh token or the client secret among it.
 */
export function oauthErrorCode(error: unknown): string {
  return typeof error === 'string' && /^[a-z_]{1,64}$/.test(error)
    ? error
    : 'an error that is not an OAuth code';
}

export function refusal(e: unknown): Refusal {
  if (e instanceof oauth.ResponseBodyError) {
    if (e.error === 'invalid_grant') return { kind: 'invalid_grant', detail: 'invalid_grant' };
    return statusRefusal(e.status, `${oauthErrorCode(e.error)}, HTTP ${e.status}`);
  }
  if (e instanceof oauth.WWWAuthenticateChallengeError)
    return { kind: 'refused', detail: `HTTP ${e.status}: the client was not accepted` };
  const response = (e as { cause?: unknown } | undefined)?.cause;
  if (response instanceof Response) return statusRefusal(response.status, `HTTP ${response.status}`);
  const code = (e as { cause?: { code?: string } } | undefined)?.cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { kind: 'not_sent', detail: `the token endpoint could not be reached: ${code}` };
  return { kind: 'unanswered', detail: code ?? (e instanceof Error ? e.message : 'no answer') };
}

function statusRefusal(status: number, detail: string): Refusal {
  return status === 200 || status === 502 || status === 504
    ? { kind: 'unanswered', detail }
    : { kind: 'refused', detail };
}

/**
 * Writes a refresh's token over the one it refreshed (`over`), never where none is now (the user
 * disconnected while the refresh was under way, and writing it would connect them again) nor
 * over another grant (they signed in again meanwhile, and writing it would undo that). Whether
 * it wrote.
 */
export async function storedOver(
  store: TokenStore,
  providerId: string,
  userId: string,
  token: StoredToken,
  over: StoredToken,
): Promise<boolean> {
  if (store.replace) return store.replace(providerId, userId, token, over);
  const stored = await store.get(providerId, userId);
  if (!replacesStored(stored, token, over)) return false;
  await store.set(providerId, userId, token);
  return true;
}

/**
 * A refresh whose token was not written over the one it refreshed: the user signed in again
 * meanwhile (that sign-in's token is kept and used; what the refresh issued is dropped, as a
 * sign-in leaves the grant before it), or disconnected. A store that cannot say which is asked
 * again later: taken for a disconnection, the refresh's token would be revoked, and at a vendor
 * whose revocation ends the person's whole grant, the new sign-in's with it. `told`: the refresh
 * was reported already (its token kept here for the store to take).
 */
export async function supersededMeanwhile(
  ctx: RefreshSettling,
  userId: string,
  orphan?: { server: AuthorizationServer; issued: StoredToken },
  told = false,
): Promise<StoredToken | undefined> {
  const now = await ctx.store.get(ctx.id, userId).catch(() => {
    throw new ToolError({
      code: 'store_unavailable',
      retryable: true,
      message: `The token store did not answer while the access token with '${ctx.id}' was being refreshed; try again shortly.`,
    });
  });
  if (!now) return disconnectedMeanwhile(ctx, orphan);
  if (!told)
    ctx.refreshed(
      'ok',
      "the user signed in again while the token was being refreshed: the refreshed token is not stored, the new sign-in's is used",
    );
  return now;
}

/**
 * A refresh not sent, since another process is sending the same refresh token: it took the
 * refresh lock over while this one stood still past the lock's life. Retryable, nothing sent;
 * under the lock, the caller waits for that process's token instead.
 */
export class RefreshedElsewhere extends ToolError {
  constructor(providerId: string) {
    super(
      {
        code: 'upstream_unavailable',
        retryable: true,
        retryAfterSeconds: 2,
        message: `Another host is refreshing the access token with '${providerId}'; nothing was sent: try again in a moment.`,
      },
      { requestNotSent: true },
    );
  }
}

/**
 * A refresh's mark not stored over the token it read (`token`): where the grant is still stored,
 * another process marked it meanwhile, and is sending its refresh token; else the user signed in
 * again or disconnected (supersededMeanwhile).
 */
export async function markRefused(
  ctx: RefreshSettling,
  userId: string,
  token: StoredToken,
): Promise<StoredToken | undefined> {
  const now = await ctx.store.get(ctx.id, userId).catch(() => undefined);
  if (now && sameGrant(now, token)) throw new RefreshedElsewhere(ctx.id);
  return supersededMeanwhile(ctx, userId);
}

/**
 * A refresh whose lock was taken over while its mark was being written (this process stood
 * still): not sent, since the process that took it over may be sending the same refresh token.
 * The mark, which says it was sent, is taken back (left, it would have the refresh token taken
 * for spent); where that process marked over it, its vendor is known to keep refresh tokens, and
 * a second sending is harmless.
 */
export async function lockLostMarking(
  ctx: RefreshSettling,
  userId: string,
  token: StoredToken,
  mark: StoredToken,
): Promise<never> {
  await storedOver(ctx.store, ctx.id, userId, token, mark).catch(() => {});
  throw new RefreshedElsewhere(ctx.id);
}

/**
 * A refresh that found the user disconnected: nothing is stored, and they must authorize again.
 * What the vendor issued after the disconnection (`orphan`) is revoked there.
 */
export async function disconnectedMeanwhile(
  ctx: RefreshSettling,
  orphan?: { server: AuthorizationServer; issued: StoredToken },
): Promise<undefined> {
  const revoked = orphan && (await revokeOrphan(orphan.server, orphan.issued));
  ctx.refreshed(
    'reauthorize',
    `the user disconnected while the token was being refreshed: the refreshed token is not stored${revoked ? `, and ${revoked}` : ''}`,
  );
  return undefined;
}

/**
 * Revokes at the vendor what a refresh issued after the user disconnected: the disconnection
 * revoked the grant they had, not a refresh token rotated since (else the new access token).
 * How it went, for the log.
 */
async function revokeOrphan(server: AuthorizationServer, issued: StoredToken): Promise<string | undefined> {
  if (!server.revokes) return undefined;
  const failed = await server.revoke(issued.refreshRotates ? issued : { accessToken: issued.accessToken });
  return failed ? `it could not be revoked at the vendor: ${failed}` : 'it is revoked at the vendor';
}

/** A rotated token the store had not taken when the host stopped: lost, its refresh token spent. */
export function rotationLost(ctx: RefreshSettling): void {
  ctx.refreshed(
    'reauthorize',
    'the host stopped before the token store took the token a refresh rotated: it is lost (the refresh token it replaced is spent), so the user must authorize again once the access token expires',
  );
}

/** The grant cannot be used any more (its message says why): the user must authorize again. */
export class GrantEnded extends Error {}

/** What a refresh request that did not return a token leaves: see {@link Refusal}. */
export async function settleFailure(
  ctx: RefreshSettling,
  userId: string,
  unmarked: StoredToken,
  mark: StoredToken,
  failure: Refusal,
): Promise<StoredToken | undefined> {
  if (failure.kind === 'invalid_grant') {
    // A refresh token already rotated elsewhere (a replica that refreshed without the
    // shared lock) is not a revoked grant: keep the newer token that is stored now.
    const current = await ctx.store.get(ctx.id, userId);
    if (current && current.refreshToken !== unmarked.refreshToken) return current;
    await ctx.store.delete(ctx.id, userId);
    ctx.refreshed(
      'reauthorize',
      'token refresh refused by the vendor (invalid_grant): the token is deleted, the user must authorize again',
    );
    return undefined;
  }
  if (failure.kind === 'unanswered') {
    // The mark stays: whoever refreshes next knows this refresh token may be spent.
    ctx.refreshed(
      'unanswered',
      unmarked.refreshRotates === false
        ? `token refresh sent but not answered (${failure.detail}); the vendor keeps refresh tokens, so the next refresh sends it again`
        : `token refresh sent but not answered (${failure.detail}): the vendor may have used its single-use refresh token, which is not sent again; the access token serves until it expires, then the user must authorize again`,
    );
    throw new ToolError({
      code: 'upstream_unavailable',
      retryable: true,
      message: `Refreshing the access token with '${ctx.id}' got no answer from its token endpoint; try again.`,
    });
  }
  // Answered, or never sent: the refresh token is as good as before; its mark (only this
  // refresh's: another's is another refresh under way) is taken back.
  await storedOver(ctx.store, ctx.id, userId, unmarked, mark).catch(() => {});
  ctx.refreshed('failed', `token refresh failed (${failure.detail}); the stored token is kept`);
  throw new ToolError(
    {
      code: 'upstream_unavailable',
      retryable: true,
      message: `Refreshing the access token with '${ctx.id}' failed (${failure.detail}); try again.`,
    },
    { requestNotSent: failure.kind === 'not_sent' },
  );
}

/**
 * A refresh answered with a new refresh token (now stored) in an answer otherwise unusable
 * (`why`, naming the field and never a value): no access token came of it, and the next
 * refresh sends the new refresh token.
 */
export function unusableRotation(ctx: RefreshSettling, why: string): never {
  ctx.refreshed(
    'failed',
    `token refresh answered with a new refresh token in an answer otherwise unusable (${why}): the refresh token it answered with is kept, the access token is not replaced`,
  );
  throw new ToolError({
    code: 'upstream_unavailable',
    retryable: true,
    message: `Refreshing the access token with '${ctx.id}' failed: its token endpoint's answer could not be used (${why}); try again.`,
  });
}

/** Whether the stored access token still serves: not the one the vendor just refused, and not expired. */
function stillServes(ctx: RefreshSettling, token: StoredToken, rejected: string | undefined): boolean {
  return token.accessToken !== rejected && (token.expiresAt ?? Number.POSITIVE_INFINITY) > ctx.now();
}

/**
 * A refresh token whose last request went unanswered, at a vendor that rotates them (or not
 * yet known to keep them): never sent again. The access token is used while it is good; then
 * the token is deleted and the user asked to authorize again, told why.
 */
export async function notSentAgain(
  ctx: RefreshSettling,
  userId: string,
  token: StoredToken,
  rejected: string | undefined,
): Promise<StoredToken | undefined> {
  if (stillServes(ctx, token, rejected)) return token;
  await ctx.store.delete(ctx.id, userId);
  ctx.refreshed(
    'reauthorize',
    'the last token refresh was sent but never answered and the access token has expired; its refresh token may be spent, so it is not sent again: the token is deleted, the user must authorize again',
  );
  throw new GrantEnded(
    `The last refresh of the access token with '${ctx.id}' got no answer, so the vendor may have used its single-use refresh token; the host does not send it again (the vendor would take that for a stolen token and revoke the connection).`,
  );
}

/**
 * A refresh whose mark the store did not take (a replication cut: store.replicaAcks unmet, or
 * Redis away), at a vendor that rotates refresh tokens (or not yet known to keep them): not
 * sent. The refresh lock is not copied to replicas either, so after a failover another replica
 * would find neither the lock nor the mark and send the same refresh token, which the vendor
 * takes for theft. The mark (`mark`), which the master may hold alone, is taken back where it is
 * still the one stored (else the next refresh would take this one for unanswered; where that
 * fails too, this process knows it for its own: UnsentMarks); the access token serves while it
 * is good.
 */
export async function notMarked(
  ctx: RefreshSettling,
  userId: string,
  token: StoredToken,
  mark: StoredToken,
  rejected: string | undefined,
): Promise<StoredToken> {
  await storedOver(ctx.store, ctx.id, userId, token, mark).catch(() => {});
  ctx.refreshed(
    'failed',
    'the token store did not take the mark of a refresh under way (with Redis: not copied to store.replicaAcks replicas), so the refresh token was not sent: a failover could let another replica send it again; the stored token is kept',
  );
  if (stillServes(ctx, token, rejected)) return token;
  throw new ToolError(
    {
      code: 'store_unavailable',
      retryable: true,
      message: `The access token with '${ctx.id}' needs a refresh, which waits until the token store takes writes again (with Redis: until store.replicaAcks replicas copy them); nothing was sent: try again shortly.`,
    },
    { requestNotSent: true },
  );
}
