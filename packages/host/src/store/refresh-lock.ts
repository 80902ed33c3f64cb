import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RefreshLock } from '../auth/oauth-provider.js';
import { inRedis } from './redis-client.js';

// Deletes the lock only if it still holds our value: a holder whose lock expired must not
// release the next holder's. https://redis.io/docs/latest/commands/set/ (the locking pattern)
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * One token refresh per provider and user across replicas: SET NX with an expiry, so that a
 * replica that dies mid-refresh frees the lock by itself after `ttlMs`.
 */
export class RedisRefreshLock implements RefreshLock {
  constructor(
    private readonly redis: Redis,
    readonly ttlMs = 30_000,
  ) {}

  async acquire(providerId: string, userId: string): Promise<(() => Promise<void>) | undefined> {
    const key = `toolhost:refresh-lock:${encodeURIComponent(providerId)}:${encodeURIComponent(userId)}`;
    const value = randomBytes(16).toString('hex');
    const got = await inRedis(() => this.redis.set(key, value, 'PX', this.ttlMs, 'NX'));
    if (got !== 'OK') return undefined;
    return async () => {
      // A release that fails (Redis away) leaves the lock to expire: waiters then go on.
      await this.redis.eval(RELEASE, 1, key, value).catch(() => {});
    };
  }
}
