/** A user's token with one auth provider, as an OAuth provider keeps it. */
export interface StoredToken {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds; absent when the token does not expire. */
  expiresAt?: number;
  /** Scopes the authorization server granted. */
  scopes: string[];
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
}

/** OAuth 2.0 endpoints of an auth provider, as a plugin declares them for its vendor. */
export interface OAuthEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  /** How the client authenticates at the token endpoint (default `post`). */
  clientAuth?: 'basic' | 'post';
}
