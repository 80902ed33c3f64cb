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

/** The Redis URL without credentials, for messages and logs (a password may sit in the URL). */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return '(an unparseable Redis URL)';
  }
}

/** Where the shared store is, for messages: the Cluster's nodes, the Sentinels' master, or the URL. */
export function describeSharedStore(url: string, store: HostConfig['store'] = {}): string {
  if (store?.cluster?.length) return `the Redis Cluster of ${store.cluster.join(', ')}`;
  const shown = redactRedisUrl(url);
  if (store?.sentinels?.length)
    return `Redis at ${shown} (master '${store.sentinelName ?? 'mymaster'}' of the Sentinels ${store.sentinels.join(', ')})`;
  return `Redis at ${shown}`;
}
