import { ToolError } from '@toolhost/core';
import type { ExpiringRecords, RecordOwner } from './ports.js';
import {
  type Durability,
  inRedis,
  NO_WAIT,
  onceRedisAnswers,
  type SharedRedis,
  writeDurably,
} from './redis-client.js';
import { DEFAULT_USER_RECORD_BYTES, UserRecordBytes } from './redis-record-bytes.js';

// Deletes the key only if it still holds the caller's value: a claim whose holder was too
// slow (the claim expired and another replica took it) must not free the next holder's.
const REMOVE_IF =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

// Sets the key unless it is set, and answers whether it holds the caller's value: a claim whose
// answer was lost (the connection cut after Redis ran it) is sent again by the Redis client on
// reconnecting, and must find it holds the claim it took, not someone else's (a preview refused
// as applied, its write never sent). Values are unique per claim, so no other caller matches.
const ADD_IF_FREE = `local held = redis.call('get', KEYS[1])
if held == false then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if held == ARGV[1] then return 1 end
return 0`;

// Extends the key's life only if it still holds the caller's value (a renewed lease).
const RENEW_IF =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/**
 * Write-safety records shared by every replica: a preview made on one is applied on another,
 * and an idempotency key claimed on one holds on all (a SET NX PX in a script is the claim). Each user's
 * records are bounded in bytes across the replicas, as the in-memory store bounds them: a new
 * preview or claim past the bound is refused, an outcome of a request sent is kept regardless.
 */
export class RedisRecords implements ExpiringRecords {
  private readonly bytes: UserRecordBytes;

  constructor(
    private readonly redis: SharedRedis,
    private readonly prefix = 'toolhost:writes:',
    /** Run beside every read: the shared salt is checked before a sealed record is opened. */
    private readonly beforeRead: () => Promise<unknown> = async () => {},
    /**
     * Replicas that must hold each claim and record before it counts: a claim or an attempt lost
     * in a failover would let the same write be sent again.
     */
    private readonly durability: Durability = NO_WAIT,
    /** Bytes of keys and values one user's records may hold (tools.writeRecordBytesPerUser). */
    maxUserBytes = DEFAULT_USER_RECORD_BYTES,
  ) {
    this.bytes = new UserRecordBytes(redis, maxUserBytes);
  }

  /** The same records, each user's bounded to `maxBytes`. */
  perUserBytes(maxBytes: number): RedisRecords {
    return new RedisRecords(this.redis, this.prefix, this.beforeRead, this.durability, maxBytes);
  }

  async add(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<boolean> {
    const full = this.prefix + key;
    try {
      const [set] = await writeDurably(
        this.redis,
        (p) => p.eval(ADD_IF_FREE, 1, full, value, Math.max(1, Math.ceil(ttlMs))),
        this.durability,
      );
      if (set !== 1) return false;
      // Charged once won: a claim lost to another holder is theirs to count.
      if (owner && !(await this.bytes.charge(owner, key, value, ttlMs))) throw this.full();
      return true;
    } catch (e) {
      // A claim no replica holds is not a claim: given back, so that a retry is not refused by it.
      await this.removeIf(key, value).catch(() => this.removeWhenBack(key, value, ttlMs));
      throw e;
    }
  }

  /**
   * Removes `key` if it holds `value` once Redis answers again: with Redis away, a claim whose
   * answer was lost (it ran, the connection was cut), or one let go of when nothing was sent,
   * stays, and would refuse every retry until it expired (a preview's mark: as applied, for as
   * long as the preview, its write never sent).
   */
  removeWhenBack(key: string, value: string, ttlMs: number): void {
    void onceRedisAnswers(this.redis, () => this.removeIf(key, value), ttlMs);
  }

  async get(key: string): Promise<string | undefined> {
    const [, value] = await Promise.all([
      this.beforeRead(),
      inRedis(() => this.redis.get(this.prefix + key)),
    ]);
    return value ?? undefined;
  }

  async put(key: string, value: string, ttlMs: number, owner?: RecordOwner): Promise<void> {
    // Charged first: a record past its user's bound is never written.
    if (owner && !(await this.bytes.charge(owner, key, value, ttlMs))) throw this.full();
    try {
      await writeDurably(this.redis, (p) => p.set(this.prefix + key, value, 'PX', ttlMs), this.durability);
    } catch (e) {
      // A write answered with an error may have landed all the same (a WAIT short of replicas).
      // An outcome of a request sent stays, counted: losing it could send the request twice.
      // Anything else is taken back with its charge, or it would live on uncounted.
      if (owner && !owner.afterSend)
        await this.removeIf(key, value)
          .then(() => this.bytes.uncharge(owner, key))
          .catch(() => {});
      throw e;
    }
  }

  async renewIf(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await inRedis(() => this.redis.eval(RENEW_IF, 1, this.prefix + key, value, ttlMs))) === 1;
  }

  async removeIf(key: string, value: string): Promise<void> {
    await inRedis(() => this.redis.eval(REMOVE_IF, 1, this.prefix + key, value));
  }

  /** The refusal the in-memory store gives past a user's share, naming the setting. */
  private full(): ToolError {
    const mib = Math.round((this.bytes.maxBytes / 1024 / 1024) * 100) / 100;
    return new ToolError({
      code: 'store_unavailable',
      retryable: true,
      message: `Your previews and idempotency keys hold the most bytes one user may keep across the replicas sharing this Redis (tools.writeRecordBytesPerUser: ${mib} MiB): apply some, or wait for some to expire. Nothing was sent.`,
    });
  }
}
