import { LocalWaiters, MAX_PENDING_PER_USER, PENDING_TTL_MS, TokenCipher } from '@toolhost/credentials';
import type { HostParts, SharedStore } from '@toolhost/redis-store';
import type { HostConfig } from '../config/host-config.js';
import type { Logger } from '../logger.js';
import { sharedStoreUrl } from './redis-url.js';

export type { SharedStore };

/** What the host lends its shared store (@toolhost/redis-store): its cipher and its flows' waiters and bounds. */
export const HOST_PARTS: HostParts = {
  Cipher: TokenCipher,
  Waiters: LocalWaiters,
  pendingBounds: { ttlMs: PENDING_TTL_MS, maxPerUser: MAX_PENDING_PER_USER },
};

/**
 * Opens the shared store when one is configured, else undefined (the embedded defaults).
 * The store's package, and Redis's client with it, loads only then.
 */
export async function openSharedStore(
  config: HostConfig,
  env: Readonly<Record<string, string | undefined>>,
  logger?: Logger,
): Promise<SharedStore | undefined> {
  const url = sharedStoreUrl(config, env);
  if (!url) return undefined;
  const store = await import('@toolhost/redis-store');
  return store.openSharedStore(
    {
      url,
      secret: env.TOOLHOST_TOKEN_KEY,
      settings: config.store,
      refreshLockMs: (config.auth?.refreshLockSeconds ?? 30) * 1000,
      largestResultBytes: config.engine?.maxResponseBytes,
    },
    { ...HOST_PARTS, logger },
  );
}
