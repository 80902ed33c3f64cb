import type { HostConfig } from '../config/host-config.js';

/**
 * The Redis URL in effect: TOOLHOST_REDIS_URL, else the config's `store.redisUrl`, else with
 * `store.cluster` its first node (a cluster without credentials or TLS needs no URL; without
 * this, a cluster configured alone would silently leave each replica a store of its own).
 */
export function sharedStoreUrl(
  config: HostConfig,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const cluster = config.store?.cluster;
  return (
    env.TOOLHOST_REDIS_URL ||
    config.store?.redisUrl ||
    (cluster?.length ? `redis://${cluster[0]}` : undefined)
  );
}
