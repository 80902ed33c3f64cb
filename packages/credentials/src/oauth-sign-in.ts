import { EventEmitter } from 'node:events';
import type { TokenStore } from '@toolhost/core';
import { ToolError } from '@toolhost/core';
import * as oauth from 'oauth4webapi';
import type { AuthorizationServer, OAuthProviderConfig } from './authorization-server.js';
import type { AuthorizationSignals } from './authorization-signals.js';
import {
  type BrowserSignIn,
  CALLBACK_PATH_PREFIX,
  OAuthCallbackError,
  type PendingFlow,
  type RevokeResult,
  START_PATH_PREFIX,
} from './browser-sign-in.js';
import type { PendingAuthorizationStore } from './pending-authorizations.js';
import { oauthErrorCode } from './refresh-outcome.js';
import { readVendorAccount } from './vendor-account.js';

/**
 * The browser side of OAuth 2.0 user authorization for one provider id: the authorization
 * code flow with PKCE and state, each flow bound to the user who started it and completed on
 * whichever replica the callback reaches, its token written to the store the provider's
 * credential side reads; and revocation when a user disconnects.
 */
export class OAuthSignIn implements BrowserSignIn {
  private readonly id: string;
  private redirectBase?: string;
  private readonly events = new EventEmitter();

  constructor(
    private readonly config: OAuthProviderConfig,
    private readonly store: TokenStore,
    private readonly server: AuthorizationServer,
    private readonly pending: PendingAuthorizationStore,
    private readonly signals: AuthorizationSignals,
  ) {
    this.id = config.id;
  }

  get hasExplicitRedirectUri(): boolean {
    return this.config.redirectUri !== undefined;
  }

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
  whenAuthorized(flowId: string, callback: () => void, userId: string): void {
    this.signals.whenAuthorized(flowId, callback, `${this.id}\0${userId}`);
  }

  /** Called with the user id, state and flow id when a user completes authorization. */
  onAuthorized(listener: (event: { userId: string; state: string; flowId: string }) => void): () => void {
    this.events.on('authorized', listener);
    return () => this.events.off('authorized', listener);
  }

  /**
   * Starts an authorization a person asked for (the connections page's Connect), asking for
   * the configured scopes, those granted already and `scopes` (one per tool that uses this
   * provider, so that every tool works afterwards): the host's start link for the flow.
   */
  async start(userId: string, scopes: readonly string[]): Promise<{ url: string; flowId: string }> {
    const current = await this.store.get(this.id, userId);
    return this.begin(userId, [
      ...new Set([...(this.config.scopes ?? []), ...(current?.scopes ?? []), ...scopes]),
    ]);
  }

  /**
   * Records a pending flow for `userId` asking for exactly `scopes`: its start link on the
   * host, and its id. The credential side begins one for a call that has no usable token.
   */
  async begin(userId: string, scopes: readonly string[]): Promise<{ url: string; flowId: string }> {
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

  get revokesAtVendor(): boolean {
    return this.config.revokeUrl !== undefined;
  }

  /**
   * Ends a user's connection: the refresh token (else the access token) is revoked at the
   * vendor where it offers revocation, then the stored token is deleted, even when the vendor
   * could not be reached, so the user's next call asks for authorization again.
   */
  async revoke(userId: string): Promise<RevokeResult> {
    const token = await this.store.get(this.id, userId);
    if (!token) return { revokedAtVendor: false, existed: false };
    const vendorFailure = this.server.revokes ? await this.server.revoke(token) : undefined;
    const revokedAtVendor = this.server.revokes && vendorFailure === undefined;
    await this.store.delete(this.id, userId);
    return { revokedAtVendor, existed: true, ...(vendorFailure ? { vendorFailure } : {}) };
  }

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

  async markOpened(flowId: string): Promise<void> {
    await this.pending.markOpened(flowId);
  }

  /**
   * Completes a flow from the authorization server's redirect, if `isBound` confirms that the
   * request comes from the browser bound to the flow; a refused request leaves the flow
   * pending for that browser.
   */
  async complete(
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
    const { as, client, clientAuth } = this.server;
    let callbackParams: URLSearchParams;
    try {
      callbackParams = oauth.validateAuthResponse(as, client, params, state);
    } catch (e) {
      const detail = e instanceof oauth.AuthorizationResponseError ? e.error : 'invalid response';
      throw new OAuthCallbackError(`Authorization was not granted (${detail}).`);
    }
    let res: oauth.TokenEndpointResponse;
    try {
      res = await this.server.exchange(async (options) =>
        oauth.processAuthorizationCodeResponse(
          as,
          client,
          await oauth.authorizationCodeGrantRequest(
            as,
            client,
            clientAuth,
            callbackParams,
            this.redirectUri,
            pending.codeVerifier,
            options,
          ),
        ),
      );
    } catch (e) {
      const detail = e instanceof oauth.ResponseBodyError ? oauthErrorCode(e.error) : 'token endpoint failed';
      throw new OAuthCallbackError(`The authorization code could not be exchanged (${detail}).`);
    }
    const stored = this.server.toStored(res, pending.scopes);
    const account =
      this.config.account && (await readVendorAccount(this.server, this.config.account, res.access_token));
    await this.store.set(this.id, pending.userId, account ? { ...stored, account } : stored);
    // The token is stored already: a lost notice costs the waiting client nothing but the
    // prompt, since its next call succeeds.
    await this.signals.authorized(flow.flowId).catch(() => {});
    this.events.emit('authorized', { userId: pending.userId, state, flowId: flow.flowId });
    return { userId: pending.userId, flow };
  }
}
