import type { StateStore, WriteOptions } from './state-store.js';

/**
 * The commands this store sends, as an ioredis client (standalone, Sentinel or Cluster) offers
 * them: any client with `call` serves, and its key prefix applies.
 */
export interface RedisCommands {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /**
   * One write command (its key first), resolved once the replicas the deployment asks for hold
   * it, rejected short of them: where given, a durable write goes through it.
   */
  callDurably?(command: string, key: string, ...args: (string | number)[]): Promise<unknown>;
}

/** A counter whose window starts at its first count, in one step. */
const INCREMENT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** One count back, keeping the window; none where the window ended (a bare DECR would start a
 * counter at -1 that never expires). */
const DECREMENT = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * The store shared by replicas: GETDEL makes a code or refresh token redeemable once across
 * the fleet, and every replica reads the same grants and signing keys.
 */
export class RedisStateStore implements StateStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix = 'toolhost:as:',
  ) {}

  async get(key: string): Promise<string | undefined> {
    const value = await this.redis.call('GET', this.prefix + key);
    return typeof value === 'string' ? value : undefined;
  }

  async set(key: string, value: string, ttlSeconds?: number, options: WriteOptions = {}): Promise<void> {
    await this.setCommand(key, [value, ...expiry(ttlSeconds)], options);
  }

  async setIfAbsent(
    key: string,
    value: string,
    ttlSeconds?: number,
    options: WriteOptions = {},
  ): Promise<boolean> {
    return (await this.setCommand(key, [value, ...expiry(ttlSeconds), 'NX'], options)) === 'OK';
  }

  /** One SET of `key`, through the durable path where asked and offered. */
  private setCommand(key: string, args: (string | number)[], options: WriteOptions): Promise<unknown> {
    return options.durable && this.redis.callDurably
      ? this.redis.callDurably('SET', this.prefix + key, ...args)
      : this.redis.call('SET', this.prefix + key, ...args);
  }

  async take(key: string): Promise<string | undefined> {
    const value = await this.redis.call('GETDEL', this.prefix + key);
    return typeof value === 'string' ? value : undefined;
  }

  async delete(key: string): Promise<void> {
    await this.redis.call('DEL', this.prefix + key);
  }

  async increment(key: string, windowSeconds: number): Promise<number> {
    return Number(await this.redis.call('EVAL', INCREMENT, 1, this.prefix + key, Math.ceil(windowSeconds)));
  }

  async decrement(key: string): Promise<void> {
    await this.redis.call('EVAL', DECREMENT, 1, this.prefix + key);
  }
}

/** SET's expiry arguments: whole seconds, at least one; none without a TTL. */
const expiry = (ttlSeconds?: number): (string | number)[] =>
  ttlSeconds === undefined ? [] : ['EX', Math.max(1, Math.ceil(ttlSeconds))];
