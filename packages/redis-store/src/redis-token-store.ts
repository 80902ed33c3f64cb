import type { StoredConnection, StoredToken, TokenStore } from '@toolhost/core';
import { replacesStored, ToolError } from '@toolhost/core';
import type { CipherClass } from './ports.js';
import { RecentTokens } from './recent-tokens.js';
import type { RedisChannels } from './redis-channels.js';
import {
  type Durability,
  inRedis,
  mastersOf,
  NO_WAIT,
  type SharedRedis,
  storeUnavailable,
  TokenStoreError,
  writeDurably,
} from './redis-client.js';
import { type SaltedSealed, SharedCipher } from './shared-cipher.js';

export { inRedis };

const FORMAT = 'toolhost-token-v1';
/** Writes ARGV[2] only where the key still holds ARGV[1]: 1 if it did. */
const SET_IF_SAME = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;
/** Reads of a token rewritten in between before a replace gives up. */
const REPLACE_ATTEMPTS = 5;
/** Where replicas announce a changed token (the message is its key), so that copies are dropped. */
const CHANGED_CHANNEL = 'toolhost:token-changed';

export const tokenKey = (providerId: string, userId: string) =>
  `toolhost:token:${encodeURIComponent(providerId)}:${encodeURIComponent(userId)}`;

/** The cipher every replica derives from the same secret and the salt shared in Redis. */
export function openSharedCipher(
  redis: SharedRedis,
  Cipher: CipherClass,
  secret: string,
): Promise<SharedCipher> {
  return SharedCipher.open(redis, Cipher, secret);
}

/**
 * Tokens shared by every replica, one Redis key per provider and user, each value sealed
 * (AES-256-GCM) with TOOLHOST_TOKEN_KEY exactly as the file store seals its file, and bound
 * to its key. The salt is shared and checked at every read (see SharedCipher).
 */
export class RedisTokenStore implements TokenStore {
  private readonly recentTokens: RecentTokens;

  constructor(
    private readonly redis: SharedRedis,
    /** Also seals the write-safety records kept beside the tokens. */
    readonly cipher: SharedCipher,
    /** Where changes are heard; without it, every read goes to Redis. */
    private readonly channels?: RedisChannels,
    recentMs?: number,
    /**
     * Replicas that must hold a token, or its deletion, before it counts as stored: a rotated
     * token lost in a failover leaves the used refresh token, which the vendor then refuses as
     * reused.
     */
    private readonly durability: Durability = NO_WAIT,
  ) {
    this.recentTokens = new RecentTokens(recentMs);
  }

  /** A store of its own cipher that hears no changes (every read goes to Redis): for tools and tests. */
  static async open(redis: SharedRedis, Cipher: CipherClass, secret: string): Promise<RedisTokenStore> {
    return new RedisTokenStore(redis, await openSharedCipher(redis, Cipher, secret));
  }

  /** Drops this replica's copy of a token whenever any replica changes it. */
  async listenForChanges(): Promise<void> {
    await this.channels?.listen(CHANGED_CHANNEL, (key) => this.recentTokens.changed(key));
  }

  /**
   * The token as read by this replica in the last moment (see RecentTokens), else from Redis:
   * for the reads of each call, never for a refresh.
   */
  recent(providerId: string, userId: string): Promise<StoredToken | undefined> {
    if (!this.channels) return this.get(providerId, userId);
    return this.recentTokens.read(tokenKey(providerId, userId), () => this.get(providerId, userId));
  }

  async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    const key = tokenKey(providerId, userId);
    const [, text] = await Promise.all([this.cipher.agree(), inRedis(() => this.redis.get(key))]);
    return text === null ? undefined : this.opened(providerId, key, text);
  }

  private opened(providerId: string, key: string, text: string): StoredToken {
    try {
      const sealed = JSON.parse(text) as SaltedSealed & { format?: string };
      if (sealed.format !== FORMAT) throw new Error('unknown format');
      return this.cipher.open(sealed, key) as StoredToken;
    } catch {
      // The key name only: the sealed value is useless without the key, but no token leaks.
      throw new TokenStoreError(
        `Cannot decrypt the token of '${providerId}' in Redis: sealed with another TOOLHOST_TOKEN_KEY, altered, or copied from another key.`,
      );
    }
  }

  async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    const key = tokenKey(providerId, userId);
    const value = await this.sealed(key, token);
    await this.change(key, () => writeDurably(this.redis, (p) => p.set(key, value), this.durability));
  }

  /**
   * A refresh's token, not written once the user disconnected (the key deleted) nor, with
   * `over`, once they signed in again (another grant stored). Sealed values cannot be compared
   * in Redis, so the stored one is read and opened here, and written over only if it is still
   * that very value (a script): one changed in between is read again.
   */
  async replace(
    providerId: string,
    userId: string,
    token: StoredToken,
    over?: StoredToken,
  ): Promise<boolean> {
    const key = tokenKey(providerId, userId);
    const value = await this.sealed(key, token);
    for (let attempt = 1; attempt <= REPLACE_ATTEMPTS; attempt += 1) {
      const stored = await inRedis(() => this.redis.get(key));
      if (stored === null || !replacesStored(this.opened(providerId, key, stored), token, over)) return false;
      let answer: unknown;
      await this.change(key, async () => {
        [answer] = await writeDurably(
          this.redis,
          (p) => p.eval(SET_IF_SAME, 1, key, stored, value),
          this.durability,
        );
      });
      if (answer === 1) return true;
    }
    // Rewritten at every read: as a store not taking writes, so the caller keeps the token.
    throw storeUnavailable();
  }

  private async sealed(key: string, token: StoredToken): Promise<string> {
    await this.cipher.agree();
    return JSON.stringify({ format: FORMAT, ...this.cipher.seal(token, key) });
  }

  /**
   * Waits for the replicas as a write does: a deletion lost in a failover brings the token back,
   * and a user who disconnected would have the host act for them again.
   */
  async delete(providerId: string, userId: string): Promise<void> {
    const key = tokenKey(providerId, userId);
    await this.change(key, () => writeDurably(this.redis, (p) => p.del(key), this.durability));
  }

  private async change(key: string, command: () => Promise<unknown>): Promise<void> {
    this.recentTokens.changed(key);
    try {
      // A ToolError (a write short of its replicas) as it is; anything else is Redis away.
      await command().catch((e: unknown) => {
        throw ToolError.isInstance(e) ? e : storeUnavailable();
      });
    } finally {
      this.recentTokens.changed(key);
      // Published by every writer, listening or not (a CLI, an operator's script through
      // this class). Lost, it costs the other replicas only their copy's short life.
      await this.redis.publish((this.redis.options.keyPrefix ?? '') + CHANGED_CHANNEL, key).catch(() => {});
    }
  }

  /** Every stored connection (SCAN, not KEYS: a large store is walked without blocking Redis). */
  async list(filter: { userId?: string; providerId?: string } = {}): Promise<StoredConnection[]> {
    const part = (id: string | undefined) => (id === undefined ? '*' : globEscape(encodeURIComponent(id)));
    const keys = await this.scan(`toolhost:token:${part(filter.providerId)}:${part(filter.userId)}`);
    const out: StoredConnection[] = [];
    for (const key of keys) {
      const { providerId, userId } = parseTokenKey(key);
      const token = await this.get(providerId, userId);
      if (token) out.push({ providerId, userId, token });
    }
    return out;
  }

  /**
   * Whether this replica's TOOLHOST_TOKEN_KEY opens the tokens in Redis (up to `limit`), and
   * under how many salts they were sealed: for `doctor`.
   */
  async audit(limit = 1000): Promise<{ tokens: number; unreadable: number; salts: number }> {
    const keys = (await this.scan('toolhost:token:*:*')).slice(0, limit);
    const salts = new Set<string>();
    let unreadable = 0;
    for (const key of keys) {
      const { providerId, userId } = parseTokenKey(key);
      const text = await inRedis(() => this.redis.get(key));
      if (text === null) continue;
      try {
        salts.add((JSON.parse(text) as SaltedSealed).salt ?? this.cipher.salt);
        await this.get(providerId, userId);
      } catch {
        unreadable++;
      }
    }
    return { tokens: keys.length, unreadable, salts: salts.size };
  }

  /**
   * Keys matching `pattern`, as this client names them (SCAN ignores ioredis's key prefix both
   * ways). A cluster's keys are spread over its masters, each scanned in turn.
   */
  private async scan(pattern: string): Promise<string[]> {
    const prefix = this.redis.options.keyPrefix ?? '';
    const keys: string[] = [];
    for (const node of mastersOf(this.redis)) {
      let cursor = '0';
      do {
        const [next, batch] = await inRedis(() =>
          node.scan(cursor, 'MATCH', globEscape(prefix) + pattern, 'COUNT', 500),
        );
        cursor = next;
        for (const key of batch) keys.push(key.slice(prefix.length));
      } while (cursor !== '0');
    }
    return keys;
  }
}

function parseTokenKey(key: string): { providerId: string; userId: string } {
  const [, , provider, user] = key.split(':');
  return { providerId: decodeURIComponent(provider ?? ''), userId: decodeURIComponent(user ?? '') };
}

/**
 * A literal for a SCAN MATCH pattern: `*` survives encodeURIComponent, and unescaped it would
 * list other users' keys (a user id `*` would match everyone).
 */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
