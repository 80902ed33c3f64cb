/**
 * A call's cancellation signal: in practice the standard `AbortSignal`, described by the part
 * the contract uses so that its types need neither the DOM nor Node's type library.
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * Why a call waits before its request leaves: for its pacing slot, for the time an upstream
 * asked for with a 429 (Retry-After), for the backoff before retrying a failed attempt (a
 * network error, a 5xx), or for its access token's refresh (another call's, or another
 * replica's, under the refresh lock).
 */
export type CallWaitReason = 'pacing' | 'retry_after' | 'retry' | 'token_refresh';

/** What a `retry` wait comes before: the attempt about to be made and why the last one failed. */
export interface CallWaitRetry {
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The failed attempt's status; absent when it got no answer. */
  status?: number;
}

/**
 * Told when a call begins a wait, with its length in milliseconds where known (and, for a
 * `retry`, the attempt it comes before); the function it returns, if any, is called when the
 * wait ends, with how long the wait held the call where the waiter knows better than a clock
 * around it (a pacer that let the request go at once says 0). A host tells long waits to the
 * client (MCP progress and log notifications) and writes them in its log.
 */
export type CallWaitListener = (
  reason: CallWaitReason,
  ms: number | undefined,
  retry?: CallWaitRetry,
) => ((waitedMs?: number) => void) | undefined;

/** Who a call is made for. Auth providers key tokens by this user id. */
export interface CallContext {
  userId: string;
  signal?: CallSignal;
  /** Told of each wait the call goes through (see {@link CallWaitListener}). */
  onWait?: CallWaitListener;
}

export interface CredentialRequest {
  userId: string;
  /** Scopes the endpoint accepts; any one suffices where the vendor lists alternatives. */
  scopes: readonly string[];
  signal?: CallSignal;
  /** Told when the provider makes the call wait (a token refresh), as `CallContext.onWait`. */
  onWait?: CallWaitListener;
}

export type CredentialResult =
  | {
      kind: 'bearer';
      token: string;
      /**
       * Which vendor-side connection the token acts for, stable across refreshes and never
       * secret: calls with the same connection share the vendor's per-account limits (pacing
       * `per: 'connection'`). Default: the user id (each user's own authorization). A token
       * that every user shares says so with one value for all.
       */
      connection?: string;
    }
  | {
      kind: 'authorization_required';
      url?: string;
      message?: string;
      /** The pending authorization's id, by which its completion can be awaited (MCP URL elicitation). */
      id?: string;
    };

/** Whether a provider is set up to supply credentials, in words for the operator (never a secret). */
export interface AuthProviderSetup {
  ok: boolean;
  /** How it is provided (`static token set in CRM_AUTH_PROVIDER_TOKEN`), or what to set. */
  detail: string;
}

/**
 * Resolves credentials for a user and the scopes a tool needs. Implementations: a static
 * token, an OAuth user-authorization flow with a token store, or the embedder's own.
 */
export interface AuthProvider {
  readonly id: string;
  /**
   * Where the credential it supplies was set, in words a person can act on (an environment
   * variable such as `CRM_AUTH_PROVIDER_TOKEN`, a config key such as
   * `auth.providers.crm.token`), never the credential itself: an error names it when the
   * upstream refuses the credential, as the place to replace it. Optional: without it the
   * error names the provider alone. A provider wrapping another passes the inner one's on.
   */
  readonly source?: string;
  getCredentials(request: CredentialRequest): Promise<CredentialResult>;
  /**
   * Told when the upstream rejected a credential this provider returned (HTTP 401), so that
   * it can refresh once. Returns a new credential to retry with, or nothing.
   */
  onUnauthorized?(request: CredentialRequest, rejected: string): Promise<CredentialResult | undefined>;
  /**
   * Whether the provider is set up (a static token is configured, an OAuth client is), for a
   * host's set-up checks, read from configuration with nothing sent. Without it a host takes
   * the provider as set up by whoever supplied it.
   */
  setup?(): AuthProviderSetup;
}

/** Named secrets such as `CDP_API_KEY`. */
export interface SecretSource {
  getSecret(name: string, context: { userId: string }): string | undefined | Promise<string | undefined>;
  /** Where an operator provides the secret, for error messages (never the value). */
  describe?(name: string): string;
}
