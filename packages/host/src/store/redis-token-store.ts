import type { StoredConnection, StoredToken, TokenStore } from '@toolhost/core';
import type { Redis } from 'ioredis';
import { TokenStoreError } from '../auth/encrypted-file-token-store.js';
import { type Sealed, TokenCipher } from '../auth/token-cipher.js';
import { RecentTokens } from './recent-tokens.js';
import type { RedisChannels } from './redis-channels.js';
import { storeUnavailable } from './redis-client.js';

const FORMAT = 'toolhost-token-v1';
const SALT_KEY = 'toolhost:token-salt';
/** Where replicas announce a changed token (the message is its key), so that copies are dropped. */
const CHANGED_CHANNEL = 'toolhost:token-changed';

export const tokenKey = (providerId: string, userId: string) =>
  `toolhost:token:${encodeURIComponent(providerId)}:${encodeURIComponent(userId)}`;

/** Runs a Redis command; an unreachable Redis becomes `store_unavailable`, never an empty answer. */
export async function inRedis<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch {
    throw storeUnavailable();
  }
}

/** The cipher every replica derives from the same secret and the salt shared in Redis. */
export async function openSharedCipher(redis: Redis, secret: string): Promise<TokenCipher> {
  if (secret.length < 16)
    throw new TokenStoreError('The token encryption key must be at least 16 characters.');
  const candidate = new TokenCipher(secret);
  await redis.set(SALT_KEY, candidate.salt.toString('base64'), 'NX');
  const salt = await redis.get(SALT_KEY);
  if (!salt) throw new TokenStoreError('The shared token salt vanished from Redis while starting.');
  return new TokenCipher(secret, Buffer.from(salt, 'base64'));
}

/**
 * Tokens shared by every replica, one Redis key per provider and user, each value sealed
 * (AES-256-GCM) with TOOLHOST_TOKEN_KEY exactly as the file store seals its file. The salt
 * is shared too (set once, by whichever replica starts first), so every replica derives the
 * same key from the same secret.
 */
export class RedisTokenStore implements TokenStore {
  private readonly recentTokens: RecentTokens;

  constructor(
    private readonly redis: Redis,
    /** Also seals the write-safety records kept beside the tokens. */
    readonly cipher: TokenCipher,
    /** Where changes are heard; without it, every read goes to Redis. */
    private readonly channels?: RedisChannels,
    recentMs?: number,
  ) {
    this.recentTokens = new RecentTokens(recentMs);
  }

  /** A store of its own cipher that hears no changes (every read goes to Redis): for tools and tests. */
  static async open(redis: Redis, secret: string): Promise<RedisTokenStore> {
    return new RedisTokenStore(redis, await openSharedCipher(redis, secret));
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
    const text = await inRedis(() => this.redis.get(tokenKey(providerId, userId)));
    if (text === null) return undefined;
    try {
      const sealed = JSON.parse(text) as Sealed & { format?: string };
      if (sealed.format !== FORMAT) throw new Error('unknown format');
      return this.cipher.open(sealed) as StoredToken;
    } catch {
      // The key name only: the sealed value is useless without the key, but no token leaks.
      throw new TokenStoreError(
        `Cannot decrypt the token of '${providerId}' in Redis: wrong TOOLHOST_TOKEN_KEY, or the value was altered.`,
      );
    }
  }

  async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    const value = JSON.stringify({ format: FORMAT, ...this.cipher.seal(token) });
    await this.change(tokenKey(providerId, userId), () =>
      this.redis.set(tokenKey(providerId, userId), value),
    );
  }

  async delete(providerId: string, userId: string): Promise<void> {
    await this.change(tokenKey(providerId, userId), () => this.redis.del(tokenKey(providerId, userId)));
  }

  private async change(key: string, command: () => Promise<unknown>): Promise<void> {
    this.recentTokens.changed(key);
    try {
      await inRedis(command);
    } finally {
      this.recentTokens.changed(key);
      // Published by every writer, listening or not (a CLI, an operator's script through
      // this class). Lost, it costs the other replicas only their copy's short life.
      await this.redis.publish(CHANGED_CHANNEL, key).catch(() => {});
    }
  }

  /** Every stored connection (SCAN, not KEYS: a large store is walked without blocking Redis). */
  async list(filter: { userId?: string; providerId?: string } = {}): Promise<StoredConnection[]> {
    const pattern = `toolhost:token:${filter.providerId ? encodeURIComponent(filter.providerId) : '*'}:${filter.userId ? encodeURIComponent(filter.userId) : '*'}`;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await inRedis(() => this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    const out: StoredConnection[] = [];
    for (const key of keys) {
      const [, , provider, user] = key.split(':');
      const providerId = decodeURIComponent(provider ?? '');
      const userId = decodeURIComponent(user ?? '');
      const token = await this.get(providerId, userId);
      if (token) out.push({ providerId, userId, token });
    }
    return out;
  }
}
