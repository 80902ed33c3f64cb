import type { StateStore, WriteOptions } from './state-store.js';

/**
 * The commands this store sends, as an ioredis client (standalone, Sentinel or Cluster) offers
 * them: any client with `call` serves, and its key prefix applies.
 */
export interface RedisCommands {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /**
   * One write command, as `call` takes it (a key first, or a script's keys after it), resolved
   * once the replicas the deployment asks for hold it, rejected short of them: where given, a
   * durable write goes through it.
   */
  callDurably?(command: string, ...args: (string | number)[]): Promise<unknown>;
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
 * A record written only where it is as expected (ARGV: 1 and the record expected, or 0 for
 * none; the new record; its expiry in seconds, 0 for none), in one step, on its key alone.
 * Found already as it would write it, it succeeds: ioredis sends a script again whose answer a
 * cut connection lost, and that second run must not read its own write as someone else's.
 */
const COMPARE_AND_SET = `local now = redis.call('GET', KEYS[1])
if now == ARGV[3] then return 1 end
if now ~= (ARGV[1] == '1' and ARGV[2] or false) then return 0 end
if ARGV[4] == '0' then redis.call('SET', KEYS[1], ARGV[3])
else redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4]) end
return 1`;

/**
 * The store shared by replicas: a compare-and-set (a script on the one key it changes, so a
 * Cluster runs it too) makes a code or refresh token redeemable once across the fleet, and
 * every replica reads the same grants and signing keys.
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

  async compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlSeconds?: number,
    options: WriteOptions = {},
  ): Promise<boolean> {
    const args = [expected === undefined ? 0 : 1, expected ?? '', value, seconds(ttlSeconds) ?? 0];
    return Number(await this.write(options, 'EVAL', COMPARE_AND_SET, 1, this.prefix + key, ...args)) === 1;
  }

  /** One SET of `key`. */
  private setCommand(key: string, args: (string | number)[], options: WriteOptions): Promise<unknown> {
    return this.write(options, 'SET', this.prefix + key, ...args);
  }

  /** One write command, through the durable path where asked and offered. */
  private write(options: WriteOptions, command: string, ...args: (string | number)[]): Promise<unknown> {
    return options.durable && this.redis.callDurably
      ? this.redis.callDurably(command, ...args)
      : this.redis.call(command, ...args);
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

/** An expiry in whole seconds, at least one; none without a TTL. */
const seconds = (ttlSeconds?: number): number | undefined =>
  ttlSeconds === undefined ? undefined : Math.max(1, Math.ceil(ttlSeconds));

/** SET's expiry arguments. */
const expiry = (ttlSeconds?: number): (string | number)[] => {
  const ttl = seconds(ttlSeconds);
  return ttl === undefined ? [] : ['EX', ttl];
};
