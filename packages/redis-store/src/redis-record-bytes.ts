import type { RecordOwner } from './ports.js';
import { inRedis, type SharedRedis } from './redis-client.js';

/**
 * Bytes of write records (keys and values) one user may keep in Redis by default: the share
 * the in-memory store lets one user hold (a quarter of its 64 MiB), room for a preview or an
 * outcome at the body limit (4 MiB) sealed.
 */
export const DEFAULT_USER_RECORD_BYTES = 16 * 1024 * 1024;

// One user's ledger, three keys in their slot: KEYS[1] a sorted set of their record keys by
// expiry, KEYS[2] a hash of each one's bytes, KEYS[3] the sum. Drops what expired, then
// charges record ARGV[1] (replacing its own charge) ARGV[2] bytes until ARGV[5] ms from now,
// unless that takes the user past ARGV[3] bytes and the record is no outcome (ARGV[4] ~= '1'):
// an outcome of a request already sent is kept whatever its size, as in memory. Atomic, so
// replicas writing one user's records at once cannot both pass the bound. Server's clock.
const CHARGE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
  total = total - tonumber(redis.call('HGET', KEYS[2], k) or '0')
  redis.call('HDEL', KEYS[2], k)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local charged = total - tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') + tonumber(ARGV[2])
local refused = ARGV[4] ~= '1' and charged > tonumber(ARGV[3])
if not refused then
  total = charged
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[5]), ARGV[1])
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if total <= 0 or not last[2] then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
else
  redis.call('SET', KEYS[3], total)
  for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], last[2]) end
end
if refused then return 0 end
return 1
`;

// Takes record ARGV[1]'s charge back (it was not written after all).
const UNCHARGE = `
local bytes = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
elseif bytes > 0 then
  redis.call('DECRBY', KEYS[3], bytes)
end
return 1
`;

/**
 * The bytes each user's write records hold in Redis, counted across the replicas for their
 * bound. The user is the keys' hash tag (`{…}`), as for their places, so a Redis Cluster keeps
 * one user's ledger in one slot. A record removed early (a claim let go) is counted until it
 * would have expired: a few hundred bytes, for seconds.
 */
export class UserRecordBytes {
  constructor(
    private readonly redis: SharedRedis,
    readonly maxBytes: number,
  ) {}

  private keys(userId: string): string[] {
    const user = `toolhost:record-bytes:{${encodeURIComponent(userId)}}`;
    return [`${user}:expiry`, `${user}:sizes`, `${user}:total`];
  }

  /** Charges `key` its bytes; false (nothing charged) when the owner would pass the bound. */
  async charge(owner: RecordOwner, key: string, value: string, ttlMs: number): Promise<boolean> {
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(value);
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const after = owner.afterSend ? '1' : '0';
    const charged = await inRedis(() =>
      this.redis.eval(CHARGE, 3, ...this.keys(owner.userId), key, bytes, this.maxBytes, after, ttl),
    );
    return charged === 1;
  }

  async uncharge(owner: RecordOwner, key: string): Promise<void> {
    await inRedis(() => this.redis.eval(UNCHARGE, 3, ...this.keys(owner.userId), key));
  }
}
