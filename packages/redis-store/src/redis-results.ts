import { setTimeout as sleep } from 'node:timers/promises';
import { DeferredWrites } from './deferred-writes.js';
import type { SharedResults, StoredResult, StoreLogger } from './ports.js';
import { inRedis, type SharedRedis } from './redis-client.js';
import type { SaltedSealed, SharedCipher } from './shared-cipher.js';

type OwnedResult = StoredResult & { userId: string };

/**
 * Bytes of results kept while Redis is away, to be shared once it answers, at least: a quarter of
 * a replica's default result memory. The replica holds them anyway while its own bounds keep
 * them, so this costs memory only for those it dropped meanwhile.
 */
const MAX_UNSHARED_BYTES = 64 * 1024 * 1024;
/** The engine's default bound of an answer (`engine.maxResponseBytes`), where none is given. */
const DEFAULT_LARGEST_RESULT = 10 * 1024 * 1024;

/**
 * One user's share of the results kept while Redis is away, and the whole: a quarter each (at
 * least 16 MiB), with room for one result of the largest answer the engine takes (a result's
 * text may run longer than the answer's bytes), so that one user making result after result
 * loses their own oldest, never another's, and a result is not too large to be kept at all (with
 * `engine.maxResponseBytes` raised past 10 MiB, none was). At most 64 MiB a user, 256 MiB in all
 * (a replica's default result memory): what is kept here is held for Redis even once the
 * replica's own bounds let it go. 256 results is more than a minute's outage makes (each is
 * over `mcp.maxResultBytes`).
 */
function unsharedShare(largestResultBytes = DEFAULT_LARGEST_RESULT) {
  const wanted = Math.ceil(largestResultBytes * 1.5);
  const bytes = Math.min(MAX_UNSHARED_BYTES, Math.max(MAX_UNSHARED_BYTES / 4, wanted));
  return { maxBytes: bytes * 4, share: { bytes, entries: 256, room: 'own oldest' } as const };
}

/** A result's id in its URI (toolhost://results/<uuid>); anything else is no result of ours. */
const ID = /^toolhost:\/\/results\/([0-9a-f-]{36})$/;

// Stores a result and lists it under its owner, then drops the owner's oldest results while
// theirs add up to more than ARGV[7] bytes (-1: no bound); the newest always stays. The
// dropped results' keys are the stored one's with another id (same owner, same slot).
const PUT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
local max = tonumber(ARGV[7])
if max < 0 then return 0 end
local listed = redis.call('ZRANGE', KEYS[2], 0, -1)
local total = 0
for _, m in ipairs(listed) do total = total + cjson.decode(m).bytes end
local base = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[6])
local dropped = 0
for _, m in ipairs(listed) do
  if total <= max or m == ARGV[5] then break end
  local entry = cjson.decode(m)
  redis.call('DEL', base .. string.match(entry.uri, '([^/]+)$'))
  redis.call('ZREM', KEYS[2], m)
  total = total - entry.bytes
  dropped = dropped + 1
end
return dropped
`;

/**
 * Results too large for a tool result, shared by replicas: the `resource_link` one replica
 * hands out is read on any other, by its owner only. Each is a Redis key expiring with the
 * result, sealed with the token cipher (results are the users' data) and bound to its key;
 * each user's results are listed in a sorted set by expiry.
 */
export class RedisResults implements SharedResults {
  /** Results Redis could not take, shared once it answers. */
  readonly unshared: DeferredWrites;

  constructor(
    private readonly redis: SharedRedis,
    private readonly cipher: SharedCipher,
    private readonly logger?: StoreLogger,
    /** The largest answer the engine takes (`engine.maxResponseBytes`): one user's share holds one. */
    largestResultBytes?: number,
  ) {
    const { maxBytes, share } = unsharedShare(largestResultBytes);
    this.unshared = new DeferredWrites(redis, maxBytes, share);
  }

  /** Told when a result could not be shared: it stays readable on the replica that made it. */
  shareFailed(error: unknown): void {
    this.logger?.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'large result not shared with the other replicas yet (Redis unreachable): readable on this one until Redis answers again',
    );
  }

  // A result and its owner's list are written in one script: both carry the owner as hash tag
  // (`{…}`), so a Redis Cluster keeps them in one slot. The reader names the owner anyway.
  private key = (id: string, userId: string) => `toolhost:result:{${encodeURIComponent(userId)}}:${id}`;
  private userKey = (userId: string) => `toolhost:results:{${encodeURIComponent(userId)}}`;

  /**
   * Shares `result`; the owner's oldest results beyond `maxUserBytes` (theirs on every replica)
   * are dropped, so that one user's results cannot take Redis's memory from the others'.
   */
  async put(result: OwnedResult, maxUserBytes = Number.POSITIVE_INFINITY): Promise<void> {
    const id = ID.exec(result.uri)?.[1];
    if (!id) return;
    // Refused while Redis is away: its link, handed out all the same, would find nothing on the
    // other replicas for the result's whole life. Shared once Redis answers, and never past it,
    // within its user's share.
    await this.write(id, result, maxUserBytes).catch((e: unknown) => {
      const write = () => this.write(id, result, maxUserBytes);
      this.unshared.add(result.bytes, result.expiresAt, write, result.userId);
      throw e;
    });
  }

  private async write(id: string, result: OwnedResult, maxUserBytes: number): Promise<void> {
    const ttlMs = Math.max(1, result.expiresAt - Date.now());
    const key = this.key(id, result.userId);
    const listed = JSON.stringify({ uri: result.uri, tool: result.tool, bytes: result.bytes });
    await this.cipher.agree();
    await inRedis(() =>
      this.redis.eval(
        PUT,
        2,
        key,
        this.userKey(result.userId),
        JSON.stringify(this.cipher.seal(result, key)),
        ttlMs,
        Date.now(),
        result.expiresAt,
        listed,
        id,
        Number.isFinite(maxUserBytes) ? maxUserBytes : -1,
      ),
    );
  }

  /**
   * The result at `uri` if it belongs to `userId`; a moment's patience for one whose replica
   * is still writing it (the link reaches the client as the write starts).
   */
  async get(uri: string, userId: string, patienceMs = 500): Promise<StoredResult | undefined> {
    const id = ID.exec(uri)?.[1];
    if (!id) return undefined;
    const deadline = Date.now() + patienceMs;
    for (;;) {
      const text = await inRedis(() => this.redis.get(this.key(id, userId)));
      if (text !== null) {
        const result = this.cipher.open(
          JSON.parse(text) as SaltedSealed,
          this.key(id, userId),
        ) as OwnedResult;
        if (result.userId !== userId || result.expiresAt <= Date.now()) return undefined;
        const { userId: _owner, ...shown } = result;
        return shown;
      }
      if (Date.now() >= deadline) return undefined;
      await sleep(50);
    }
  }

  /** The live results of one user, oldest first, without their text. */
  async list(userId: string): Promise<Omit<StoredResult, 'text'>[]> {
    const members = await inRedis(() =>
      this.redis.zrangebyscore(this.userKey(userId), Date.now(), '+inf', 'WITHSCORES'),
    );
    const out: Omit<StoredResult, 'text'>[] = [];
    for (let i = 0; i < members.length; i += 2) {
      const { uri, tool, bytes } = JSON.parse(members[i]!) as { uri: string; tool: string; bytes: number };
      out.push({ uri, tool, bytes, expiresAt: Number(members[i + 1]) });
    }
    return out;
  }
}
