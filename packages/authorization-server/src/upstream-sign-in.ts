import { isUserId } from '@toolhost/front-door/user-id';
import * as oauth from 'oauth4webapi';
import type { UpstreamSignIn } from './options.js';
import { isLoopbackHost } from './redirect-uris.js';
import { hashOf } from './secrets.js';
import type { StateStore } from './state-store.js';

interface UpstreamAttempt {
  requestId: string;
  browser: string;
  verifier: string;
  nonce: string;
  /** The state sent to the provider: the request's id, a dot, a random part. */
  state: string;
}

const ATTEMPT_SECONDS = 600;

/**
 * "Sign in with" the team's OpenID provider: authorization code with PKCE and a nonce, the
 * ID token checked by oauth4webapi, the user id taken from a verified claim. Each attempt is
 * kept under its state, and taken once at the callback.
 */
export class UpstreamSignInFlow {
  private discovered?: Promise<oauth.AuthorizationServer>;
  private readonly client: oauth.Client;
  private readonly clientAuth: oauth.ClientAuth;
  private readonly insecure: boolean;

  constructor(
    private readonly config: UpstreamSignIn,
    private readonly store: StateStore,
    private readonly redirectUri: () => string,
  ) {
    this.client = { client_id: config.clientId };
    this.clientAuth = config.clientSecret ? oauth.ClientSecretPost(config.clientSecret) : oauth.None();
    // Plain HTTP only to a provider on this machine (tests, a local IdP).
    this.insecure = isLoopbackHost(new URL(config.issuer).hostname);
  }

  get name(): string {
    return this.config.name ?? new URL(this.config.issuer).host;
  }

  private requestOptions() {
    return {
      signal: AbortSignal.timeout(10_000),
      ...(this.insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    };
  }

  private provider(): Promise<oauth.AuthorizationServer> {
    this.discovered ??= (async () => {
      const issuer = new URL(this.config.issuer);
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...this.requestOptions() });
      return oauth.processDiscoveryResponse(issuer, response);
    })();
    // A provider down at the first sign-in is asked again at the next.
    this.discovered.catch(() => {
      this.discovered = undefined;
    });
    return this.discovered;
  }

  /** Where to send the browser to sign in, for this pending request. */
  async start(requestId: string, browser: string): Promise<string> {
    const as = await this.provider();
    if (!as.authorization_endpoint) throw new Error('The sign-in provider has no authorization endpoint');
    const verifier = oauth.generateRandomCodeVerifier();
    // Kept under its request, each start replacing the last: a browser starting the sign-in
    // over and over keeps one attempt, not one per start (nothing else bounds the starts).
    const state = `${requestId}.${oauth.generateRandomState()}`;
    const nonce = oauth.generateRandomNonce();
    const attempt: UpstreamAttempt = { requestId, browser, verifier, nonce, state };
    await this.store.set(attemptKey(requestId), JSON.stringify(attempt), ATTEMPT_SECONDS);
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', this.redirectUri());
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', (this.config.scopes ?? ['openid', 'email', 'profile']).join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', nonce);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url.href;
  }

  /**
   * The attempt a callback's state names, taken once; none where the state is not its request's
   * latest attempt (an earlier start, or made up), which then stays for its own callback.
   */
  private async takeAttempt(state: string): Promise<UpstreamAttempt | undefined> {
    const requestId = state.slice(0, Math.max(0, state.indexOf('.')));
    if (!requestId || requestId.length > 64) return undefined;
    const held = await this.store.get(attemptKey(requestId));
    if (held === undefined || !sameText((JSON.parse(held) as UpstreamAttempt).state, state)) return undefined;
    // Taken as read: of two callbacks at once, one finds it. A start made in between replaced
    // it: that newer attempt goes back for its own callback (unless another start came since).
    const taken = await this.store.take(attemptKey(requestId));
    if (taken === held) return JSON.parse(held) as UpstreamAttempt;
    if (taken !== undefined) await this.store.setIfAbsent(attemptKey(requestId), taken, ATTEMPT_SECONDS);
    return undefined;
  }

  /**
   * Completes a sign-in at the callback: the pending request it was for and the user id, or
   * an error message safe to show.
   */
  async finish(
    callback: URL,
    browser: string | undefined,
  ): Promise<{ requestId: string; subject: string } | { error: string; requestId?: string }> {
    const state = callback.searchParams.get('state') ?? '';
    const attempt = await this.takeAttempt(state);
    if (!attempt) return { error: 'This sign-in has expired or was already used; start again.' };
    if (attempt.browser !== browser) return { error: 'This sign-in was started in another browser.' };
    const failed = (error: string) => ({ error, requestId: attempt.requestId });
    try {
      const as = await this.provider();
      const params = oauth.validateAuthResponse(as, this.client, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        this.client,
        this.clientAuth,
        params,
        this.redirectUri(),
        attempt.verifier,
        this.requestOptions(),
      );
      const result = await oauth.processAuthorizationCodeResponse(as, this.client, response, {
        expectedNonce: attempt.nonce,
        requireIdToken: true,
      });
      const claims = oauth.getValidatedIdTokenClaims(result)!;
      const subject = userOfClaims(claims, this.config);
      if (typeof subject !== 'string') return failed(subject.refused);
      return { requestId: attempt.requestId, subject };
    } catch (e) {
      if (e instanceof oauth.AuthorizationResponseError)
        return failed(`The sign-in was refused (${e.error}).`);
      return failed('The sign-in provider could not complete the sign-in.');
    }
  }
}

const attemptKey = (requestId: string) => `upstream:${requestId}`;

/** Whether two texts are equal, compared by their hashes (no timing of the state's bytes). */
const sameText = (a: string, b: string) => hashOf(a) === hashOf(b);

/**
 * The user a provider's ID token names, by the configured claim, or why it may not sign in:
 * the email only where the provider vouches for it, and only the allowed users and domains.
 */
export function userOfClaims(
  claims: Record<string, unknown>,
  config: Pick<UpstreamSignIn, 'userClaim' | 'allowedUsers' | 'allowedDomains'>,
): string | { refused: string } {
  const claim = config.userClaim ?? 'email';
  const value = claims[claim];
  if (typeof value !== 'string' || value === '')
    return { refused: `The sign-in provider did not say your ${claim}.` };
  // The front door's rule: the user id keys the host's stores, logs and pages alike.
  if (!isUserId(value)) return { refused: `Your ${claim} at the sign-in provider cannot be a user id here.` };
  // An email the provider does not vouch for is a name anyone can type at some providers:
  // it names a user here only where the provider says it is verified.
  if (claim === 'email' && claims.email_verified !== true)
    return {
      refused:
        'The sign-in provider does not say your email address is verified; the operator can name another claim (userClaim).',
    };
  if (config.allowedUsers && !config.allowedUsers.includes(value))
    return { refused: 'This account may not use this server.' };
  const domains = config.allowedDomains;
  if (domains) {
    const email = typeof claims.email === 'string' ? claims.email : '';
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (
      !email.includes('@') ||
      !domains.some((d) => d.toLowerCase() === domain) ||
      claims.email_verified !== true
    )
      return { refused: "This account's domain may not use this server." };
  }
  return value;
}
