import type { AuthProvider } from '@toolhost/core';

/**
 * `ok`; `reauthorize`: the grant is gone (the token is deleted, the user must authorize again);
 * `failed`: no access token came of it, and the refresh token stored is as good as before
 * (or the one the vendor answered with, in an answer otherwise unusable); `unanswered`: the
 * request was sent and its answer never came, so the vendor may have used the refresh token.
 */
export type RefreshOutcome = 'ok' | 'reauthorize' | 'failed' | 'unanswered';

/** A refresh as the host hears of it: its outcome, and why in a sentence for the operator (never a token). */
export interface RefreshEvent {
  outcome: RefreshOutcome;
  why: string;
}

/**
 * What the host hears of an auth provider's token refreshes (its metrics), and how it stops
 * the requests the provider has running.
 */
export interface RefreshingProvider extends AuthProvider {
  /** Called after each refresh this host attempts, or declines to send (see {@link RefreshOutcome}). */
  onRefreshed(listener: (event: RefreshEvent) => void): () => void;
  /** Called with how long a call waited for another replica's refresh (the shared lock). */
  onLockWaited(listener: (ms: number) => void): () => void;
  /**
   * Stops: token requests still running are aborted (refreshes after up to `waitMs` more),
   * rotated tokens not yet stored get one last try.
   */
  close(waitMs?: number): Promise<void>;
}

/** Whether `provider` refreshes tokens (and so reports refreshes and has requests to stop), whatever its class. */
export function isRefreshingProvider(provider: AuthProvider): provider is RefreshingProvider {
  const p = provider as Partial<RefreshingProvider>;
  return (
    typeof p.onRefreshed === 'function' &&
    typeof p.onLockWaited === 'function' &&
    typeof p.close === 'function'
  );
}
