import type { AccountLookup, StoredToken } from '@toolhost/core';
import * as oauth from 'oauth4webapi';
import { withinDateRange } from './token-expiry.js';

export interface OAuthProviderConfig {
  id: string;
  clientId: string;
  clientSecret?: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientAuth?: 'basic' | 'post';
  /** The vendor's RFC 7009 revocation endpoint, where it has one. */
  revokeUrl?: string;
  /** Where the vendor says which account a token acts for. */
  account?: AccountLookup;
  /** Explicit redirect URI; otherwise `<redirect base>/oauth/callback/<id>` once the HTTP server listens. */
  redirectUri?: string;
  /** Scopes asked for in every authorization, besides those a tool needs. */
  scopes?: string[];
  /** Refresh this long before expiry (default 60 s). */
  refreshSkewSeconds?: number;
  /**
   * Deadline of each code exchange and revocation (default 10 s), and how long a call waits
   * for a refresh before it is answered a retryable error: the refresh itself is never cut
   * short (its lock is held and kept alive until it ends), since a refresh token the vendor
   * may have used must not be sent again.
   */
  tokenRequestTimeoutMs?: number;
}

/**
 * The most of a token endpoint's answer (or a revocation's, or an account lookup's) read:
 * they are a few kilobytes. A refresh is read with no deadline, so an answer that never ends
 * would otherwise be read into memory for as long as the vendor keeps writing.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** `fetch`, with the answer's body cut off (an error to its reader, the connection dropped) past MAX_ANSWER_BYTES. */
export async function boundedFetch(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.body) return response;
  let read = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > MAX_ANSWER_BYTES)
          controller.error(new Error(`the answer is longer than ${MAX_ANSWER_BYTES} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * A refresh answered with a refresh token in a 200 that oauth4webapi rejects whole (its
 * token_type, expires_in, scope or access_token missing or malformed). A vendor that rotates
 * refresh tokens has spent the one sent, so this one is all the grant has left and must be
 * kept. The message is oauth4webapi's, which names the field and never a value; the token is
 * kept off the error's own properties, so that a logged error shows none.
 */
export class UnusableRotation extends Error {
  readonly #refreshToken: string;

  constructor(refreshToken: string, why: string) {
    super(why);
    this.#refreshToken = refreshToken;
  }

  get refreshToken(): string {
    return this.#refreshToken;
  }
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
      ...(config.account?.via === 'introspection' ? { introspection_endpoint: config.account.url } : {}),
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

  /**
   * Runs one exchange with the vendor (its request and the reading of its answer) under the
   * host's stop and, unless `deadline` is false, the request deadline. The deadline is a timer
   * this object owns, kept until the exchange ends: `AbortSignal.any` over
   * `AbortSignal.timeout` lets Node 20 collect the timeout's signal, and the deadline with it
   * (a Disconnect against a hanging vendor then never answered).
   */
  async exchange<T>(
    send: (options: oauth.TokenEndpointRequestOptions) => Promise<T>,
    deadline = true,
  ): Promise<T> {
    const controller = new AbortController();
    const ms = this.config.tokenRequestTimeoutMs ?? 10_000;
    const timer = deadline
      ? setTimeout(() => controller.abort(new DOMException(`no answer in ${ms} ms`, 'TimeoutError')), ms)
      : undefined;
    timer?.unref();
    const stop = () => controller.abort(this.stopping.signal.reason);
    if (this.stopping.signal.aborted) stop();
    else this.stopping.signal.addEventListener('abort', stop, { once: true });
    try {
      return await send({
        signal: controller.signal,
        [oauth.customFetch]: boundedFetch,
        ...(this.insecure ? { [oauth.allowInsecureRequests]: true } : {}),
      });
    } finally {
      clearTimeout(timer);
      this.stopping.signal.removeEventListener('abort', stop);
    }
  }

  /** Whether the vendor offers RFC 7009 revocation. */
  get revokes(): boolean {
    return this.as.revocation_endpoint !== undefined;
  }

  /**
   * Revokes a grant at the vendor: its refresh token where it has one (at most vendors the
   * access tokens issued under it go too), else its access token. Why it failed, if it did.
   */
  async revoke(token: Pick<StoredToken, 'accessToken' | 'refreshToken'>): Promise<string | undefined> {
    const { as, client, clientAuth } = this;
    let status: number | undefined;
    try {
      await this.exchange(async (options) => {
        const response = await oauth.revocationRequest(
          as,
          client,
          clientAuth,
          token.refreshToken ?? token.accessToken,
          {
            ...options,
            additionalParameters: { token_type_hint: token.refreshToken ? 'refresh_token' : 'access_token' },
          },
        );
        status = response.status;
        await oauth.processRevocationResponse(response);
      });
      return undefined;
    } catch (e) {
      return status === undefined
        ? `its revocation endpoint could not be reached (${(e as Error).message})`
        : `its revocation endpoint answered HTTP ${status}`;
    }
  }

  /**
   * One refresh request, with no deadline: a refresh cut short may have been used by the
   * vendor, and its refresh token must not be sent again. Calls stop waiting for it at their
   * own deadline instead.
   */
  refresh(refreshToken: string): Promise<oauth.TokenEndpointResponse> {
    const { as, client, clientAuth } = this;
    return this.exchange(async (options) => {
      const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, options);
      // Read again only if oauth4webapi rejects the answer whole: see UnusableRotation.
      const copy = response.status === 200 ? response.clone() : undefined;
      try {
        return await oauth.processRefreshTokenResponse(as, client, response);
      } catch (e) {
        const rotated = await copy?.json().then(
          (body: unknown) => (body as { refresh_token?: unknown } | null)?.refresh_token,
          () => undefined,
        );
        if (typeof rotated === 'string' && rotated !== '')
          throw new UnusableRotation(rotated, e instanceof Error ? e.message : 'an unreadable answer');
        throw e;
      }
    }, false);
  }

  /** A token endpoint's answer as the store keeps it; what the answer leaves out is kept from `previous`. */
  toStored(res: oauth.TokenEndpointResponse, fallbackScopes: string[], previous?: StoredToken): StoredToken {
    const expiresAt = res.expires_in === undefined ? undefined : this.now() + res.expires_in * 1000;
    return {
      accessToken: res.access_token,
      ...(res.refresh_token
        ? { refreshToken: res.refresh_token }
        : previous?.refreshToken
          ? { refreshToken: previous.refreshToken }
          : {}),
      ...(withinDateRange(expiresAt) ? { expiresAt } : {}),
      scopes: res.scope ? res.scope.split(/[\s,]+/).filter(Boolean) : fallbackScopes,
      ...(previous?.account ? { account: previous.account } : {}),
    };
  }
}
