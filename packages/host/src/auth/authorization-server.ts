import type { StoredToken } from '@toolhost/core';
import * as oauth from 'oauth4webapi';

export interface OAuthProviderConfig {
  id: string;
  clientId: string;
  clientSecret?: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientAuth?: 'basic' | 'post';
  /** The vendor's RFC 7009 revocation endpoint, where it has one. */
  revokeUrl?: string;
  /** Explicit redirect URI; otherwise `<redirect base>/oauth/callback/<id>` once the HTTP server listens. */
  redirectUri?: string;
  /** Scopes asked for in every authorization, besides those a tool needs. */
  scopes?: string[];
  /** Refresh this long before expiry (default 60 s). */
  refreshSkewSeconds?: number;
  /**
   * Deadline of each request to the token and revocation endpoints (default 10 s): shorter
   * than the refresh lock, so that a stalled refresh ends before another replica may refresh.
   */
  tokenRequestTimeoutMs?: number;
}

function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
}

/**
 * The vendor's authorization server as this client reaches it: the token endpoint (code
 * exchange, refresh) and revocation, each request under its deadline and aborted when the
 * host stops. Shared by a provider's credential side and its sign-in flow.
 */
export class AuthorizationServer {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  private readonly insecure: boolean;
  /** Aborts every token and revocation request still running (the host is stopping). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly config: OAuthProviderConfig,
    private readonly now: () => number,
  ) {
    this.as = {
      issuer: new URL(config.authorizeUrl).origin,
      authorization_endpoint: config.authorizeUrl,
      token_endpoint: config.tokenUrl,
      ...(config.revokeUrl ? { revocation_endpoint: config.revokeUrl } : {}),
    };
    this.client = { client_id: config.clientId };
    this.clientAuth =
      config.clientSecret === undefined
        ? oauth.None()
        : config.clientAuth === 'basic'
          ? oauth.ClientSecretBasic(config.clientSecret)
          : oauth.ClientSecretPost(config.clientSecret);
    // Plain HTTP only for loopback token endpoints (tests, local proxies).
    this.insecure = isLoopback(config.tokenUrl);
  }

  /** Whether the host is stopping (token requests are aborted). */
  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Aborts the requests still running: their callers get an error at once. */
  stop(): void {
    this.stopping.abort(new Error('host stopping'));
  }

  /** Each request's deadline and the host's stop, and plain HTTP for a loopback server. */
  options(): oauth.TokenEndpointRequestOptions {
    const signal = AbortSignal.any([
      AbortSignal.timeout(this.config.tokenRequestTimeoutMs ?? 10_000),
      this.stopping.signal,
    ]);
    return { signal, ...(this.insecure ? { [oauth.allowInsecureRequests]: true } : {}) };
  }

  /** A token endpoint's answer as the store keeps it; what the answer leaves out is kept from `previous`. */
  toStored(res: oauth.TokenEndpointResponse, fallbackScopes: string[], previous?: StoredToken): StoredToken {
    return {
      accessToken: res.access_token,
      ...(res.refresh_token
        ? { refreshToken: res.refresh_token }
        : previous?.refreshToken
          ? { refreshToken: previous.refreshToken }
          : {}),
      ...(res.expires_in !== undefined ? { expiresAt: this.now() + res.expires_in * 1000 } : {}),
      scopes: res.scope ? res.scope.split(/[\s,]+/).filter(Boolean) : fallbackScopes,
    };
  }
}
