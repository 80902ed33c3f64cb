/** A user's token with one auth provider, as an OAuth provider keeps it. */
export interface StoredToken {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds; absent when the token does not expire. */
  expiresAt?: number;
  /** Scopes the authorization server granted. */
  scopes: string[];
  /**
   * Which vendor account the token acts for, in the vendor's words (`ana@example.com ·
   * example.hubspot.com`), read once when the person connects; never secret. Absent where the
   * provider declares no way to read it, or the vendor did not answer.
   */
  account?: string;
  /**
   * When a refresh with `refreshToken` was sent whose answer never came (epoch milliseconds):
   * the vendor may have used the refresh token. Written before a refresh is sent, gone with its
   * answer; a store must keep it with the token.
   */
  refreshSentAt?: number;
  /**
   * The id of the refresh that wrote the mark (`refreshSentAt`), unique to it: a process takes
   * back, or marks over, only the mark it read or wrote, never another's made in the same
   * millisecond. Absent on marks of hosts before it (those are told apart by time alone).
   */
  refreshMark?: string;
  /**
   * Whether the vendor issued a new refresh token at the last refresh (single-use refresh
   * tokens), or kept the one it had (false). Unknown until a first refresh.
   */
  refreshRotates?: boolean;
}

/**
 * Whether two tokens are the same grant, one stage of it: the same access and refresh token,
 * whatever else a refresh's bookkeeping (`refreshSentAt`) changed. A refresh or a new sign-in
 * makes another.
 */
export function sameGrant(a: StoredToken, b: StoredToken): boolean {
  return a.accessToken === b.accessToken && a.refreshToken === b.refreshToken;
}

/**
 * Whether `replace` writes `token` where `stored` is, given the grant it refreshed (`over`): a
 * token is stored, and it is that grant, or already this one (a write repeated until the store
 * acknowledged it may have landed the first time, and must land again where it was not copied).
 *
 * Where `token` is `over` with only its mark changed (a refresh's mark written, or taken back),
 * it is written only where the stored mark is the one `over` carries, or `token`'s own: a mark of
 * another refresh there is another process's refresh of this very refresh token (one that took
 * the refresh lock over while this one stood still, past the lock's life), and marking over it,
 * or taking it back, would let that refresh token be sent a second time.
 */
export function replacesStored(
  stored: StoredToken | undefined,
  token: StoredToken,
  over?: StoredToken,
): stored is StoredToken {
  if (stored === undefined) return false;
  if (!over) return true;
  if (sameGrant(token, over) && !sameMark(token, over))
    return sameGrant(stored, over) && (sameMark(stored, over) || sameMark(stored, token));
  return sameGrant(stored, over) || sameGrant(stored, token);
}

/** Whether two tokens carry the same refresh mark, or none. */
function sameMark(a: StoredToken, b: StoredToken): boolean {
  return a.refreshSentAt === b.refreshSentAt && a.refreshMark === b.refreshMark;
}

/** One user's stored authorization with one provider. */
export interface StoredConnection {
  providerId: string;
  userId: string;
  token: StoredToken;
}

/**
 * Where OAuth tokens live, keyed by provider id and user id. The host's default keeps them
 * in an encrypted file; a multi-instance deployment plugs a shared store (a database, a
 * secrets manager) in through the embedding API.
 */
export interface TokenStore {
  get(providerId: string, userId: string): Promise<StoredToken | undefined>;
  set(providerId: string, userId: string, token: StoredToken): Promise<void>;
  delete(providerId: string, userId: string): Promise<void>;
  /**
   * Writes the token only over one stored now, in one step, and says whether it did: the result
   * of a refresh is not written once the user disconnected meanwhile (that would connect them
   * again). With `over`, only where the stored token is still that grant or already `token`
   * ({@link replacesStored}), never over the token of a sign-in made meanwhile (that would undo
   * it), and a refresh's mark never over another's. Optional: without it the host reads,
   * compares, then writes; a store whose `replace` ignores `over` keeps the first guarantee only.
   */
  replace?(providerId: string, userId: string, token: StoredToken, over?: StoredToken): Promise<boolean>;
  /**
   * The stored authorizations, optionally of one user or provider, so that people can see
   * and end their connections. Optional: a store without it cannot list connections.
   */
  list?(filter?: { userId?: string; providerId?: string }): Promise<StoredConnection[]>;
}

/** OAuth 2.0 endpoints of an auth provider, as a plugin declares them for its vendor. */
export interface OAuthEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  /** How the client authenticates at the token endpoint (default `post`). */
  clientAuth?: 'basic' | 'post';
  /**
   * The vendor's token revocation endpoint (RFC 7009: a form POST of `token`, with the client
   * authenticating as at the token endpoint), where it offers one; a disconnected user's
   * refresh token is revoked there, not only forgotten. Since contract 2.1.
   */
  revokeUrl?: string;
  /**
   * Where the vendor says which account a token acts for, read once when a person connects so
   * that they can see which of their accounts they connected. Since contract 2.5.
   */
  account?: AccountLookup;
}

/**
 * How to ask a vendor which account an access token acts for: `bearer`, a GET with the token
 * as its bearer credential (Airtable's `whoami`); `introspection`, an RFC 7662 form POST of the
 * token with the client authenticating as at the token endpoint (HubSpot's introspection).
 */
export interface AccountLookup {
  via: 'bearer' | 'introspection';
  url: string;
  /** Fields of the answer that name the account, shown in this order where present (`user`, `hub_domain`). */
  fields: readonly string[];
}
