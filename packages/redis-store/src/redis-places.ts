import type { PerUserPlaces } from './ports.js';
import { inRedis, type SharedRedis } from './redis-client.js';

// One script on one key (the user's places of one kind): drops expired places, refuses a new
// one at the bound, else adds it and keeps the set alive as long as its last place. Atomic in
// Redis, so two replicas taking a user's last place at once cannot both get it. Expiries use
// the server's clock: replicas whose clocks differ still agree on which places are live.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
`;

/**
 * Each user's places (previews, idempotency keys) counted in Redis, so that a user's bound
 * holds across every replica sharing it rather than per replica: a sorted set per user and
 * kind, of record ids scored by their expiry. The user is the key's hash tag (`{…}`), as for
 * their large results, so a Redis Cluster keeps one user's keys in one slot.
 */
export class RedisPlaces implements PerUserPlaces {
  readonly scope = 'across the replicas sharing this Redis';

  constructor(private readonly redis: SharedRedis) {}

  private key = (kind: string, userId: string) => `toolhost:places:{${encodeURIComponent(userId)}}:${kind}`;

  async take(kind: string, userId: string, id: string, max: number, ttlMs: number): Promise<boolean> {
    const taken = await inRedis(() =>
      this.redis.eval(TAKE, 1, this.key(kind, userId), id, max, Math.max(1, Math.ceil(ttlMs))),
    );
    return taken === 1;
  }

  async giveBack(kind: string, userId: string, id: string): Promise<void> {
    await inRedis(() => this.redis.zrem(this.key(kind, userId), id));
  }
}
