import type { AuthProvider } from '@toolhost/core';

export type RefreshOutcome = 'ok' | 'reauthorize' | 'failed';

/**
 * What the host hears of an auth provider's token refreshes (its metrics), and how it stops
 * the requests the provider has running.
 */
export interface RefreshingProvider extends AuthProvider {
  /**
   * Called after each refresh this host attempts: `ok`, `reauthorize` (the grant is gone, the
   * user must authorize again) or `failed` (the token endpoint could not be reached).
   */
  onRefreshed(listener: (event: { outcome: RefreshOutcome }) => void): () => void;
  /** Called with how long a call waited for another replica's refresh (the shared lock). */
  onLockWaited(listener: (ms: number) => void): () => void;
  /** Stops: token requests still running are aborted, rotated tokens not yet stored get one last try. */
  close(): Promise<void>;
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
