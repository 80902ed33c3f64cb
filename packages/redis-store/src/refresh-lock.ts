import { randomBytes } from 'node:crypto';
import type { RefreshLock } from './ports.js';
import { inRedis, type SharedRedis } from './redis-client.js';

// Deletes the lock only if it still holds our value: a holder whose lock expired must not
// release the next holder's. https://redis.io/docs/latest/commands/set/ (the locking pattern)
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
// Extends the lock only while it is still ours.
const EXTEND =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
// Takes the lock if free, answering 1 if it is ours: an acquisition whose answer was lost (the
// connection cut after Redis ran it) is sent again by the Redis client on reconnecting, and must
// find the lock it took rather than wait on it, held by no one, until it expires.
const ACQUIRE = `local held = redis.call('get', KEYS[1])
if held == false then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if held == ARGV[1] then return 1 end
return 0`;
// Turns our lock into the mark of a failed refresh, held a moment longer.
const MARK_FAILED =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('set', KEYS[1], 'failed', 'PX', ARGV[2]) else return 0 end";

/**
 * One token refresh per provider and user across replicas: SET NX with an expiry (ACQUIRE),
 * extended every third of it while its holder works (a refresh, then writing the rotated token
 * until the store takes it), so that it outlives any token request (each has a shorter deadline)
 * and a replica that dies mid-refresh frees it within `ttlMs`. A failed refresh leaves the
 * lock marked `failed` for `failedMs`: waiting replicas give up rather than send the refresh
 * token the failed request may have used.
 */
export class RedisRefreshLock implements RefreshLock {
  constructor(
    private readonly redis: SharedRedis,
    readonly ttlMs = 30_000,
    private readonly failedMs = 2_000,
  ) {}

  private key(providerId: string, userId: string): string {
    return `toolhost:refresh-lock:${encodeURIComponent(providerId)}:${encodeURIComponent(userId)}`;
  }

  async acquire(
    providerId: string,
    userId: string,
  ): Promise<((outcome?: { failed?: boolean }) => Promise<void>) | undefined> {
    const key = this.key(providerId, userId);
    const value = randomBytes(16).toString('hex');
    const got = await inRedis(() => this.redis.eval(ACQUIRE, 1, key, value, this.ttlMs));
    if (got !== 1) return undefined;
    const alive = setInterval(() => {
      // One that fails (Redis away) is retried at the next tick; the lock outlives two misses.
      this.redis.eval(EXTEND, 1, key, value, this.ttlMs).catch(() => {});
    }, this.ttlMs / 3);
    alive.unref();
    return async (outcome = {}) => {
      clearInterval(alive);
      // A release that fails (Redis away) leaves the lock to expire: waiters then go on.
      if (outcome.failed) await this.redis.eval(MARK_FAILED, 1, key, value, this.failedMs).catch(() => {});
      else await this.redis.eval(RELEASE, 1, key, value).catch(() => {});
    };
  }

  async recentlyFailed(providerId: string, userId: string): Promise<boolean> {
    return (await inRedis(() => this.redis.get(this.key(providerId, userId)))) === 'failed';
  }
}
