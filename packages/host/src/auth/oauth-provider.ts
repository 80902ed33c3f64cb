import { EventEmitter } from 'node:events';
import type {
  AuthProvider,
  CredentialRequest,
  CredentialResult,
  StoredToken,
  TokenStore,
} from '@toolhost/core';
import { ToolError } from '@toolhost/core';
import { sleep } from '@toolhost/engine/internal';
import * as oauth from 'oauth4webapi';
import { HostError, hasCode } from '../host-error.js';
import { type AuthorizationSignals, MemoryAuthorizationSignals } from './authorization-signals.js';
import { type PendingAuthorizationStore, PendingAuthorizations } from './pending-authorizations.js';

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

/**
 * Mutual exclusion of token refreshes across host replicas (a Redis lock in the shared
 * store). Rotating refresh tokens are single-use: two replicas refreshing at once would have
 * one of them fail and, worse, treat the failure as a revoked grant.
 */
export interface RefreshLock {
  /** How long a held lock lasts if its holder never releases it (a replica that died). */
  readonly ttlMs: number;
  /**
   * The release function when acquired (the lock is kept alive until then), undefined when
   * another replica holds the lock. Released with `failed`, the lock is held a moment longer
   * and marked so: the replicas waiting on it give up instead of sending the refresh token
   * the failed request may have used.
   */
  acquire(
    providerId: string,
    userId: string,
  ): Promise<((outcome?: { failed?: boolean }) => Promise<void>) | undefined>;
  /** Whether the last holder's refresh failed a moment ago (see `acquire`). */
  recentlyFailed?(providerId: string, userId: string): Promise<boolean>;
}

/** Where a provider's flows wait and how their completion is told: one process, or Redis. */
export interface AuthorizationFlows {
  pending: PendingAuthorizationStore;
  signals: AuthorizationSignals;
}

export type RefreshOutcome = 'ok' | 'reauthorize' | 'failed';

export class OAuthCallbackError extends HostError {
  readonly code = 'oauth_callback_failed' as const;
  static override isInstance = hasCode<OAuthCallbackError>('oauth_callback_failed');
  override readonly name = 'OAuthCallbackError';
  /** The HTTP status the callback page answers with. */
  readonly status: number;

  constructor(message: string, status = 400) {
    super(message);
    this.status = status;
  }
}

export const CALLBACK_PATH_PREFIX = '/oauth/callback/';
/** Where the link handed to the user points: the host binds the browser, then redirects on. */
export const START_PATH_PREFIX = '/oauth/start/';

/** A pending flow as the host's start step sees it. */
export interface PendingFlow {
  provider: string;
  flowId: string;
  state: string;
  userId: string;
  authorizeUrl: string;
  /** Whether a browser has been bound to it already. */
  opened: boolean;
}

function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
}

/**
 * OAuth 2.0 user authorization (authorization code with PKCE and state) for one provider id:
 * a token per user, refreshed before expiry and once on a 401, with one refresh shared by
 * concurrent calls. A user without a usable token gets "authorization required" with the URL.
 */
export class OAuthAuthProvider implements AuthProvider {
  readonly id: string;
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly clientAuth: oauth.ClientAuth;
  private readonly pending: PendingAuthorizationStore;
  private readonly signals: AuthorizationSignals;
  private readonly refreshing = new Map<string, Promise<StoredToken | undefined>>();
  private readonly events = new EventEmitter();
  private redirectBase?: string;
  private readonly insecure: boolean;
  /** Rotated tokens the store refused (kept, used, and written again until it takes them). */
  private readonly unsaved = new Map<string, StoredToken>();
  /** Aborts every token and revocation request still running (the host is stopping). */
  private readonly stopping = new AbortController();
  private readonly saving = new Set<Promise<void>>();

  constructor(
    private readonly config: OAuthProviderConfig,
    private readonly store: TokenStore,
    private readonly now: () => number = Date.now,
    private readonly refreshLock?: RefreshLock,
    flows?: AuthorizationFlows,
  ) {
    this.id = config.id;
    this.pending = flows?.pending ?? new PendingAuthorizations();
    this.signals = flows?.signals ?? new MemoryAuthorizationSignals();
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

  /** The operator configured the redirect URI (it does not follow the server's address). */
  get hasExplicitRedirectUri(): boolean {
    return this.config.redirectUri !== undefined;
  }

  /** Where the host's HTTP server listens, so the redirect URI can be derived. */
  setRedirectBase(base: string): void {
    this.redirectBase = base.replace(/\/+$/, '');
  }

  get redirectUri(): string {
    if (this.config.redirectUri) return this.config.redirectUri;
    if (!this.redirectBase) {
      throw new ToolError({
        code: 'configuration_error',
        retryable: false,
        message: `Auth provider '${this.id}' has no redirect URI: set auth.providers.${this.id}.redirectUri or serve the host over HTTP.`,
      });
    }
    return `${this.redirectBase}${CALLBACK_PATH_PREFIX}${encodeURIComponent(this.id)}`;
  }

  /**
   * The base URL of the host's own OAuth pages (start and callback): where the HTTP server
   * listens, else the origin and path before `/oauth/callback/` of a configured redirect URI.
   */
  private get pagesBase(): string {
    if (this.redirectBase) return this.redirectBase;
    const explicit = this.config.redirectUri;
    if (explicit) {
      const at = explicit.indexOf(CALLBACK_PATH_PREFIX);
      return at >= 0 ? explicit.slice(0, at) : new URL(explicit).origin;
    }
    return this.redirectUri; // throws the configuration error that explains what to set
  }

  /**
   * Calls `callback` once if this flow completes, whichever replica its callback reaches. The
   * waiter expires with the flow, and a flow has one waiter however many calls ask.
   */
  whenAuthorized(flowId: string, callback: () => void): void {
    this.signals.whenAuthorized(flowId, callback);
  }

  /** Called with the user id, state and flow id when a user completes authorization. */
  onAuthorized(listener: (event: { userId: string; state: string; flowId: string }) => void): () => void {
    this.events.on('authorized', listener);
    return () => this.events.off('authorized', listener);
  }

  /**
   * Called after each refresh this host attempts: `ok`, `reauthorize` (the grant is gone, the
   * user must authorize again) or `failed` (the token endpoint could not be reached).
   */
  onRefreshed(listener: (event: { outcome: RefreshOutcome }) => void): () => void {
    this.events.on('refreshed', listener);
    return () => this.events.off('refreshed', listener);
  }

  /** Called with how long a call waited for another replica's refresh (the shared lock). */
  onLockWaited(listener: (ms: number) => void): () => void {
    this.events.on('lockWaited', listener);
    return () => this.events.off('lockWaited', listener);
  }

  async getCredentials(request: CredentialRequest): Promise<CredentialResult> {
    // A copy read a moment ago is enough here: a stale one is expired or rejected, and the
    // refresh that follows reads the store itself, under the lock.
    let token =
      this.unsaved.get(request.userId) ??
      (await (hasRecentReads(this.store)
        ? this.store.recent(this.id, request.userId)
        : this.store.get(this.id, request.userId)));
    if (!token || !this.grants(token, request.scopes)) return this.authorizationRequired(request, token);
    if (
      token.expiresAt !== undefined &&
      token.expiresAt - (this.config.refreshSkewSeconds ?? 60) * 1000 <= this.now()
    ) {
      const waited = request.onWait?.('token_refresh', undefined);
      try {
        token = await this.refreshShared(request.userId, token);
      } finally {
        waited?.();
      }
      if (!token) return this.authorizationRequired(request, undefined);
    }
    return { kind: 'bearer', token: token.accessToken };
  }

  async onUnauthorized(request: CredentialRequest, rejected: string): Promise<CredentialResult | undefined> {
    let token = this.unsaved.get(request.userId) ?? (await this.store.get(this.id, request.userId));
    if (!token) return this.authorizationRequired(request, undefined);
    // Another call may have refreshed already: use its token rather than refreshing again.
    if (token.accessToken === rejected) token = await this.refreshShared(request.userId, token);
    if (!token) return this.authorizationRequired(request, undefined);
    return { kind: 'bearer', token: token.accessToken };
  }

  /** Any one of the listed scopes suffices (vendors list alternatives per endpoint). */
  private grants(token: StoredToken, scopes: readonly string[]): boolean {
    return scopes.length === 0 || scopes.some((s) => token.scopes.includes(s));
  }

  private async authorizationRequired(
    request: CredentialRequest,
    token: StoredToken | undefined,
  ): Promise<CredentialResult> {
    const wanted = new Set([...(this.config.scopes ?? []), ...(token?.scopes ?? [])]);
    if (request.scopes.length > 0 && !request.scopes.some((s) => wanted.has(s)))
      wanted.add(request.scopes[0]!);
    const { url, flowId } = await this.beginFlow(request.userId, [...wanted]);
    return {
      kind: 'authorization_required',
      url,
      id: flowId,
      message: `Authorization with '${this.id}' is required: open the URL, approve access, then call the tool again.`,
    };
  }

  /**
   * Starts an authorization a person asked for (the connections page's Connect), asking for
   * the configured scopes and `scopes` (one per tool that uses this provider, so that every
   * tool works afterwards): the host's start link for the flow.
   */
  async startAuthorization(
    userId: string,
    scopes: readonly string[],
  ): Promise<{ url: string; flowId: string }> {
    const current = await this.store.get(this.id, userId);
    return this.beginFlow(userId, [
      ...new Set([...(this.config.scopes ?? []), ...(current?.scopes ?? []), ...scopes]),
    ]);
  }

  /** Records a pending flow for `userId` asking for `scopes`: its start link on the host, and its id. */
  private async beginFlow(
    userId: string,
    scopes: readonly string[],
  ): Promise<{ url: string; flowId: string }> {
    const state = oauth.generateRandomState();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const url = new URL(this.config.authorizeUrl);
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', this.redirectUri);
    url.searchParams.set('response_type', 'code');
    if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    const flowId = oauth.generateRandomState();
    const start = `${this.pagesBase}${START_PATH_PREFIX}${encodeURIComponent(this.id)}?flow=${flowId}`;
    await this.pending.add(state, {
      userId,
      codeVerifier,
      scopes: [...scopes],
      flowId,
      authorizeUrl: url.href,
    });
    return { url: start, flowId };
  }

  /**
   * Ends a user's connection: the refresh token (else the access token) is revoked at the
   * vendor where it offers revocation, then the stored token is deleted, even when the vendor
   * could not be reached, so the user's next call asks for authorization again.
   */
  async disconnect(
    userId: string,
  ): Promise<{ revokedAtVendor: boolean; existed: boolean; vendorFailure?: string }> {
    const token = await this.store.get(this.id, userId);
    if (!token) return { revokedAtVendor: false, existed: false };
    let revokedAtVendor = false;
    // What went wrong at the vendor, in words for the person (the grant may still be alive there).
    let vendorFailure: string | undefined;
    if (this.config.revokeUrl) {
      let status: number | undefined;
      try {
        const response = await oauth.revocationRequest(
          this.as,
          this.client,
          this.clientAuth,
          token.refreshToken ?? token.accessToken,
          {
            ...this.options(),
            additionalParameters: { token_type_hint: token.refreshToken ? 'refresh_token' : 'access_token' },
          },
        );
        status = response.status;
        await oauth.processRevocationResponse(response);
        revokedAtVendor = true;
      } catch (e) {
        revokedAtVendor = false;
        vendorFailure =
          status === undefined
            ? `its revocation endpoint could not be reached (${(e as Error).message})`
            : `its revocation endpoint answered HTTP ${status}`;
      }
    }
    await this.store.delete(this.id, userId);
    return { revokedAtVendor, existed: true, ...(vendorFailure ? { vendorFailure } : {}) };
  }

  /** Whether tokens can be revoked at the vendor (not only forgotten here). */
  get revokesAtVendor(): boolean {
    return this.config.revokeUrl !== undefined;
  }

  private options(): oauth.TokenEndpointRequestOptions {
    const signal = AbortSignal.any([
      AbortSignal.timeout(this.config.tokenRequestTimeoutMs ?? 10_000),
      this.stopping.signal,
    ]);
    return { signal, ...(this.insecure ? { [oauth.allowInsecureRequests]: true } : {}) };
  }

  /**
   * Stops: token requests still running are aborted (their callers get an error at once), and
   * rotated tokens still waiting for the store get one last try.
   */
  async close(): Promise<void> {
    this.stopping.abort(new Error('host stopping'));
    await Promise.all([...this.saving]);
  }

  private toStored(
    res: oauth.TokenEndpointResponse,
    fallbackScopes: string[],
    previous?: StoredToken,
  ): StoredToken {
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

  /** The pending flow a start link names, or undefined when unknown or expired. */
  async pendingFlow(flowId: string): Promise<PendingFlow | undefined> {
    const found = await this.pending.byFlow(flowId);
    if (!found) return undefined;
    const { state, entry } = found;
    return {
      provider: this.id,
      flowId,
      state,
      userId: entry.userId,
      authorizeUrl: entry.authorizeUrl,
      opened: entry.opened,
    };
  }

  /** Records that a browser has been bound to the flow (a link opens in one browser only). */
  async markOpened(flowId: string): Promise<void> {
    await this.pending.markOpened(flowId);
  }

  /**
   * Completes a flow from the authorization server's redirect, if `isBound` confirms that the
   * request comes from the browser bound to the flow; a refused request leaves the flow
   * pending for that browser.
   */
  async handleCallback(
    params: URLSearchParams,
    isBound: (flow: PendingFlow) => boolean,
  ): Promise<{ userId: string; flow: PendingFlow }> {
    const state = params.get('state') ?? '';
    const entry = await this.pending.get(state);
    const flow = entry && (await this.pendingFlow(entry.flowId));
    if (!flow)
      throw new OAuthCallbackError('Unknown or expired authorization state; start again from the tool call.');
    if (!isBound(flow)) {
      throw new OAuthCallbackError(
        'This authorization was started in another browser; finish it there, or call the tool again for a new link.',
        403,
      );
    }
    const pending = await this.pending.take(state);
    // Another replica (or a second tab) completed it between our read and our take.
    if (!pending)
      throw new OAuthCallbackError('Unknown or expired authorization state; start again from the tool call.');
    let callbackParams: URLSearchParams;
    try {
      callbackParams = oauth.validateAuthResponse(this.as, this.client, params, state);
    } catch (e) {
      const detail = e instanceof oauth.AuthorizationResponseError ? e.error : 'invalid response';
      throw new OAuthCallbackError(`Authorization was not granted (${detail}).`);
    }
    let res: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        this.as,
        this.client,
        this.clientAuth,
        callbackParams,
        this.redirectUri,
        pending.codeVerifier,
        this.options(),
      );
      res = await oauth.processAuthorizationCodeResponse(this.as, this.client, response);
    } catch (e) {
      const detail = e instanceof oauth.ResponseBodyError ? e.error : 'token endpoint failed';
      throw new OAuthCallbackError(`The authorization code could not be exchanged (${detail}).`);
    }
    await this.store.set(this.id, pending.userId, this.toStored(res, pending.scopes));
    // The token is stored already: a lost notice costs the waiting client nothing but the
    // prompt, since its next call succeeds.
    await this.signals.authorized(flow.flowId).catch(() => {});
    this.events.emit('authorized', { userId: pending.userId, state, flowId: flow.flowId });
    return { userId: pending.userId, flow };
  }

  private refreshShared(userId: string, token: StoredToken): Promise<StoredToken | undefined> {
    let flight = this.refreshing.get(userId);
    if (!flight) {
      flight = this.refreshOnce(userId, token).finally(() => this.refreshing.delete(userId));
      this.refreshing.set(userId, flight);
    }
    return flight;
  }

  /**
   * Refreshes under the shared lock when there is one. A replica that finds the lock held
   * waits for the holder's token to appear in the store instead of refreshing itself; the
   * holder re-reads the store first, since another replica may have refreshed since our read.
   */
  private async refreshOnce(userId: string, stale: StoredToken): Promise<StoredToken | undefined> {
    const lock = this.refreshLock;
    if (!lock) return this.refresh(userId, stale, () => {});
    const started = Date.now();
    const deadline = started + lock.ttlMs + 5000;
    let waited = false;
    try {
      return await this.refreshUnderLock(userId, stale, lock, deadline, () => {
        waited = true;
      });
    } finally {
      if (waited) this.events.emit('lockWaited', Date.now() - started);
    }
  }

  private async refreshUnderLock(
    userId: string,
    stale: StoredToken,
    lock: RefreshLock,
    deadline: number,
    waiting: () => void,
  ): Promise<StoredToken | undefined> {
    const gaveUp = () =>
      new ToolError({
        code: 'upstream_unavailable',
        retryable: true,
        message: `Refreshing the access token with '${this.id}' failed on another host replica a moment ago; try again.`,
      });
    for (;;) {
      const release = await lock.acquire(this.id, userId);
      if (release) {
        let failed = false;
        let handedOff = false;
        try {
          const current = await this.store.get(this.id, userId);
          if (!current) return undefined;
          if (current.accessToken !== stale.accessToken) return current;
          return await this.refresh(userId, current, (saved) => {
            // The lock stays held (and alive) until the rotated token is stored: no replica
            // refreshes meanwhile with the refresh token just used.
            handedOff = true;
            void saved.finally(() => release());
          });
        } catch (e) {
          // Only a request that may have reached the vendor makes its refresh token suspect.
          failed = ToolError.isInstance(e) && e.code === 'upstream_unavailable' && !e.requestNotSent;
          throw e;
        } finally {
          if (!handedOff) await release({ failed });
        }
      }
      waiting();
      await sleep(50);
      const current = this.unsaved.get(userId) ?? (await this.store.get(this.id, userId));
      if (!current) return undefined;
      if (current.accessToken !== stale.accessToken) return current;
      // Its refresh token may have reached the vendor in the failed request: not sent again now.
      if (await lock.recentlyFailed?.(this.id, userId)) throw gaveUp();
      if (Date.now() > deadline) {
        throw new ToolError({
          code: 'upstream_unavailable',
          retryable: true,
          message: `Another host replica is still refreshing the access token with '${this.id}'; try again.`,
        });
      }
    }
  }

  /**
   * One refresh request. A rotated token the store refuses is never dropped: it is kept here,
   * used by this replica's calls, and written again until the store takes it; `unsaved` is
   * told, with the promise of that write.
   */
  private async refresh(
    userId: string,
    token: StoredToken,
    unsaved: (saved: Promise<void>) => void,
  ): Promise<StoredToken | undefined> {
    if (!token.refreshToken) {
      await this.store.delete(this.id, userId);
      this.refreshed('reauthorize');
      return undefined;
    }
    let res: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.refreshTokenGrantRequest(
        this.as,
        this.client,
        this.clientAuth,
        token.refreshToken,
        this.options(),
      );
      res = await oauth.processRefreshTokenResponse(this.as, this.client, response);
    } catch (e) {
      if (e instanceof oauth.ResponseBodyError) {
        // A refresh token already rotated elsewhere (a replica that refreshed without the
        // shared lock) is not a revoked grant: keep the newer token that is stored now.
        const current = await this.store.get(this.id, userId);
        if (current && current.refreshToken !== token.refreshToken) return current;
        // Revoked or expired refresh token: the user must authorize again.
        await this.store.delete(this.id, userId);
        this.refreshed('reauthorize');
        return undefined;
      }
      this.refreshed('failed');
      throw new ToolError(
        {
          code: 'upstream_unavailable',
          retryable: true,
          message: `Refreshing the access token with '${this.id}' failed (the token endpoint did not answer in time, or could not be reached); try again.`,
        },
        { requestNotSent: neverSent(e) },
      );
    }
    const next = this.toStored(res, token.scopes, token);
    try {
      await this.store.set(this.id, userId, next);
    } catch {
      this.unsaved.set(userId, next);
      unsaved(this.saveLater(userId, next));
    }
    this.refreshed('ok');
    return next;
  }

  /** Writes a rotated token the store refused, every half second until it takes it or the host stops. */
  private saveLater(userId: string, token: StoredToken): Promise<void> {
    const saved = (async () => {
      for (;;) {
        const last = this.stopping.signal.aborted;
        try {
          await this.store.set(this.id, userId, token);
          break;
        } catch {
          if (last) break;
          await sleep(500);
        }
      }
      if (this.unsaved.get(userId) === token) this.unsaved.delete(userId);
    })();
    this.saving.add(saved);
    void saved.finally(() => this.saving.delete(saved));
    return saved;
  }

  private refreshed(outcome: RefreshOutcome): void {
    this.events.emit('refreshed', { outcome });
  }
}

/** Whether a failed token request certainly never reached the vendor (refused, name not found). */
function neverSent(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } } | undefined)?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}

/** A store that can answer a call's read from a copy it made a moment ago (the Redis store). */
interface RecentReads {
  recent(providerId: string, userId: string): Promise<StoredToken | undefined>;
}

function hasRecentReads(store: TokenStore): store is TokenStore & RecentReads {
  return typeof (store as Partial<RecentReads>).recent === 'function';
}
