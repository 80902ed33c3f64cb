import type { AuthProvider } from '@toolhost/core';
import { CredentialsError, hasCode } from './credentials-error.js';

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

/** What ending a user's connection did: whether there was one, and whether the vendor revoked it. */
export interface RevokeResult {
  existed: boolean;
  revokedAtVendor: boolean;
  /** What went wrong at the vendor, in words for the person (the grant may still be alive there). */
  vendorFailure?: string;
}

export class OAuthCallbackError extends CredentialsError {
  readonly code = 'oauth_callback_failed' as const;
  static isInstance = hasCode<OAuthCallbackError>('oauth_callback_failed');
  override readonly name = 'OAuthCallbackError';
  /** The HTTP status the callback page answers with. */
  readonly status: number;

  constructor(message: string, status = 400) {
    super(message);
    this.status = status;
  }
}

/**
 * A user's sign-in with a vendor in their browser, which leaves a token in the token store
 * for the provider's credential side: the host's pages start it (`/oauth/start/<provider>`),
 * complete it (`/oauth/callback/<provider>`) and end it (`/connections`); an MCP client is
 * told when it completes. The host serves these routes for every provider that has one.
 */
export interface BrowserSignIn {
  /** The redirect URI the vendor sends the browser back to (the host's callback page). */
  readonly redirectUri: string;
  /** The operator configured the redirect URI (it does not follow the server's address). */
  readonly hasExplicitRedirectUri: boolean;
  /** Where the host's HTTP server is reached, so the redirect URI can be derived from it. */
  setRedirectBase(base: string): void;
  /**
   * Starts a sign-in a person asked for (the connections page's Connect), for `scopes` besides
   * those already granted: the host's start link for it, and the flow's id.
   */
  start(userId: string, scopes: readonly string[]): Promise<{ url: string; flowId: string }>;
  /** The pending flow a start link names, or undefined when unknown or expired. */
  pendingFlow(flowId: string): Promise<PendingFlow | undefined>;
  /** Records that a browser has been bound to the flow (a link opens in one browser only). */
  markOpened(flowId: string): Promise<void>;
  /**
   * Completes a flow from the authorization server's redirect, if `isBound` confirms that the
   * request comes from the browser bound to the flow; throws an {@link OAuthCallbackError}
   * (with the status the page answers) otherwise, or when the vendor refused.
   */
  complete(
    params: URLSearchParams,
    isBound: (flow: PendingFlow) => boolean,
  ): Promise<{ userId: string; flow: PendingFlow }>;
  /** Whether ending a connection also revokes the grant at the vendor (not only forgets it here). */
  readonly revokesAtVendor: boolean;
  /** Ends a user's connection: revoked at the vendor where it can be, the stored token deleted. */
  revoke(userId: string): Promise<RevokeResult>;
  /**
   * Calls `callback` once if `userId`'s flow completes, whichever replica its callback reaches
   * (a user keeps as many waiting as they may have flows pending: their oldest makes room).
   */
  whenAuthorized(flowId: string, callback: () => void, userId: string): void;
}

/** An auth provider whose users sign in in their browser. */
export interface SignInProvider extends AuthProvider {
  readonly signIn: BrowserSignIn;
}

/** Whether users of `provider` sign in in their browser (it has a sign-in flow), whatever its class. */
export function hasBrowserSignIn(provider: AuthProvider): provider is SignInProvider {
  const signIn = (provider as Partial<SignInProvider>).signIn;
  return typeof signIn === 'object' && signIn !== null;
}
