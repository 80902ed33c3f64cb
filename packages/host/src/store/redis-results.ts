import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import type { StoredResult } from '../mcp/result-store.js';
import { inRedis, type SharedRedis } from './redis-client.js';
import type { SaltedSealed, SharedCipher } from './shared-cipher.js';

type OwnedResult = StoredResult & { userId: string };

/** A result's id in its URI (toolhost://results/<uuid>); anything else is no result of ours. */
const ID = /^toolhost:\/\/results\/([0-9a-f-]{36})$/;

/**
 * Results too large for a tool result, shared by replicas: the `resource_link` one replica
 * hands out is read on any other, by its owner only. Each is a Redis key expiring with the
 * result, sealed with the token cipher (results are the users' data) and bound to its key;
 * each user's results are listed in a sorted set by expiry.
 */
export class RedisResults {
  constructor(
    private readonly redis: SharedRedis,
    private readonly cipher: SharedCipher,
    private readonly logger?: Logger,
  ) {}

  /** Told when a result could not be shared: it stays readable on the replica that made it. */
  shareFailed(error: unknown): void {
    this.logger?.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'large result not shared with the other replicas (Redis unreachable): readable on this one only',
    );
  }

  // A result and its owner's list are written in one MULTI: both carry the owner as hash tag
  // (`{…}`), so a Redis Cluster keeps them in one slot. The reader names the owner anyway.
  private key = (id: string, userId: string) => `toolhost:result:{${encodeURIComponent(userId)}}:${id}`;
  private userKey = (userId: string) => `toolhost:results:{${encodeURIComponent(userId)}}`;

  async put(result: OwnedResult): Promise<void> {
    const id = ID.exec(result.uri)?.[1];
    if (!id) return;
    const ttlMs = Math.max(1, result.expiresAt - Date.now());
    const key = this.key(id, result.userId);
    const listed = JSON.stringify({ uri: result.uri, tool: result.tool, bytes: result.bytes });
    await this.cipher.agree();
    await inRedis(() =>
      this.redis
        .multi()
        .set(key, JSON.stringify(this.cipher.seal(result, key)), 'PX', ttlMs)
        .zremrangebyscore(this.userKey(result.userId), '-inf', Date.now())
        .zadd(this.userKey(result.userId), result.expiresAt, listed)
        .pexpire(this.userKey(result.userId), ttlMs)
        .exec(),
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
