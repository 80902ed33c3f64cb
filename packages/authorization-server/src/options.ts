import type { IncomingMessage } from 'node:http';
import type { TrustedProxies } from './caller.js';
import type { GrantType } from './grant-types.js';
import type { SignInMethod } from './sign-in-binding.js';
import type { StateStore } from './state-store.js';

/** A scope the server grants, with the words its consent page shows for it. */
export interface ScopeDescription {
  name: string;
  description: string;
}

/** Signing in through the team's OpenID provider ("Sign in with …"). */
export interface UpstreamSignIn {
  /** The provider's issuer; its discovery document is read from it. */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** The name on the button (default: the issuer's host). */
  name?: string;
  /** Scopes asked of the provider (default `openid email profile`). */
  scopes?: string[];
  /** The ID token claim that becomes the user id (default `email`, taken only where the provider says `email_verified: true`). */
  userClaim?: string;
  /** Only these users (by the claim's value) may sign in; default anyone the provider signs in. */
  allowedUsers?: string[];
  /** Only users whose email is at one of these domains may sign in. */
  allowedDomains?: string[];
}

/** The access tokens people sign in with, and what ties each person to theirs. */
export interface AccessTokenSignIn {
  /** The user a pasted token names; undefined for none. */
  userForToken(token: string): string | undefined;
  /**
   * What ties the user to the token they hold now (a digest of it), undefined once they hold
   * none. A sign-in made with a token, and every grant made under it, ends once this changes:
   * the token replaced after a leak, or the person removed, takes their grants with it.
   */
  bindingOf?(userId: string): string | undefined;
  /**
   * Whether people may sign in with a token here (default true). False where nobody holds one
   * now: the sign-in page offers none, yet grants made with a token are still judged by
   * `bindingOf` (and end), where leaving `accessToken` out would leave them unvouched (503).
   */
  offered?: boolean;
}

export interface SignInMethods {
  /** The team's OpenID provider. */
  upstream?: UpstreamSignIn;
  /**
   * The user id of a per-user access token the person pastes (the host's access tokens): a
   * function, or an object that also tells what ties the user to the token they hold now.
   */
  accessToken?: AccessTokenSignIn | ((token: string) => string | undefined);
  /**
   * One user for whoever reaches the server: honoured only while the issuer is a loopback URL
   * (the person at this machine), as the host's local mode is today.
   */
  localUser?: string;
}

export interface AuthorizationServerOptions {
  /** The issuer: the URL the server is reached at (read per request: it may follow the port). */
  issuer: string | (() => string);
  /** The resources (RFC 8707) tokens are issued for: the MCP endpoint's URL. The first is the default. */
  resources: readonly string[] | (() => readonly string[]);
  scopes: readonly ScopeDescription[];
  /** Scopes granted when a client asks for none (default: every scope). */
  defaultScopes?: readonly string[];
  signIn: SignInMethods;
  store: StateStore;
  /** Encrypts the signing key at rest (32 bytes, the same on every replica). */
  sealKey?: Buffer;
  /** Dynamic client registration (RFC 7591); default true. */
  dynamicRegistration?: boolean;
  /** Client id metadata documents; default true. */
  clientIdMetadataDocuments?: boolean;
  /** Client ids (URLs) or their hosts whose names the consent page shows as verified. */
  trustedClients?: readonly string[];
  /**
   * The embedding application's own pages as clients (public, PKCE, their exact redirect URIs):
   * known without registration, and issued a code right after sign-in, with no consent page
   * (the person is signing in to the application itself, not granting a third party).
   */
  firstPartyClients?: readonly {
    clientId: string;
    redirectUris: readonly string[] | (() => readonly string[]);
    clientName?: string;
    /** Its grants (default the authorization code alone: no refresh token). */
    grantTypes?: readonly GrantType[];
  }[];
  accessTokenSeconds?: number;
  refreshTokenSeconds?: number;
  /**
   * Dynamic registration's limits: registrations per address and in all per window, and how
   * many days a registered client is kept after it was last issued tokens (90; one never issued
   * any is kept a day).
   */
  registration?: { perAddress?: number; total?: number; windowSeconds?: number; clientDays?: number };
  /**
   * Authorization requests opened (each waits up to 10 minutes for the person's sign-in and
   * consent) per address and in all, per 10 minutes: 300 and 20,000.
   */
  authorizationRequests?: { perAddress?: number; total?: number };
  /**
   * The caller's address, for the bounds per address (registrations, authorization requests,
   * failed sign-ins): behind a reverse proxy, the client's address as a trusted proxy reports
   * it. Default: the connection's, which behind a proxy is the proxy's for everyone. IPv6
   * addresses count by their /64.
   */
  callerAddress?: (req: IncomingMessage) => string;
  /**
   * The reverse proxies trusted to name the client in `X-Forwarded-For`, where `callerAddress`
   * is not given. Without them, a request arriving through a proxy is reported once to `warn`.
   */
  trustedProxies?: TrustedProxies;
  /**
   * Fetching client id metadata documents: the timeout (5 s) and size (10 KiB) of one, and how
   * many a token or revocation request may have fetched (a document not cached) per address and
   * in all per 10 minutes: 60 and 10,000.
   */
  metadataFetch?: {
    timeoutMs?: number;
    maxBytes?: number;
    ca?: string[];
    perAddress?: number;
    total?: number;
  };
  /** Records sign-in, consent, token issue, refresh, revocation and refusals (the audit log). */
  onEvent?: (event: AuthorizationEvent) => void;
}

export interface AuthorizationEvent {
  type:
    | 'sign_in'
    | 'sign_in_refused'
    | 'consent'
    | 'consent_denied'
    | 'token_issued'
    | 'token_refreshed'
    | 'token_revoked'
    | 'grant_revoked'
    | 'client_registered'
    | 'refused';
  clientId?: string;
  subject?: string;
  /** How the person signed in (sign-ins, consents, tokens issued and refreshed); none for a grant made before grants said. */
  signedInWith?: SignInMethod;
  /** Why, for refusals: an OAuth error code and its description (never a secret). */
  error?: string;
  reason?: string;
}
