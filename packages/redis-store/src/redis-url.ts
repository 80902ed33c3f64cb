import type { StoreSettings } from './ports.js';

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
export function describeSharedStore(url: string, store: StoreSettings = {}): string {
  if (store?.cluster?.length) return `the Redis Cluster of ${store.cluster.join(', ')}`;
  const shown = redactRedisUrl(url);
  if (store?.sentinels?.length)
    return `Redis at ${shown} (master '${store.sentinelName ?? 'mymaster'}' of the Sentinels ${store.sentinels.join(', ')})`;
  return `Redis at ${shown}`;
}
