import type { Cluster, Redis } from 'ioredis';
import type { StoreLogger } from './ports.js';
import type { SharedRedis } from './redis-client.js';

/**
 * Redis pub/sub for what replicas tell each other (a completed authorization, a closed
 * session). A subscribed connection can do nothing else, so this holds a second connection,
 * made like the first (same URL, options and reconnection); ioredis subscribes again by
 * itself after a reconnect. Messages published while a replica is disconnected are lost to
 * it: every user of this has a fallback (the next call succeeds, the session record in Redis).
 */
export class RedisChannels {
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  /** ioredis puts `store.keyPrefix` before keys only: channels get it here. */
  private readonly prefix: string;

  private constructor(
    private readonly redis: SharedRedis,
    private readonly subscriber: SharedRedis,
  ) {
    this.prefix = redis.options.keyPrefix ?? '';
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
  }

  static async open(redis: SharedRedis, logger?: StoreLogger): Promise<RedisChannels> {
    // Queued commands here are only ioredis's own re-subscription after a reconnect, which
    // must wait for the connection rather than fail unhandled.
    const subscriber: SharedRedis = redis.isCluster
      ? (redis as Cluster).duplicate([], { enableOfflineQueue: true, lazyConnect: true })
      : (redis as Redis).duplicate({ enableOfflineQueue: true, lazyConnect: true });
    // Its outages are the main connection's too, which logs them.
    subscriber.on('error', () => {});
    await subscriber.connect();
    logger?.debug('shared store (Redis): subscriber connected');
    return new RedisChannels(redis, subscriber);
  }

  /** Calls `handler` with every message published on `channel` (by any replica, this one too). */
  async listen(channel: string, handler: (message: string) => void): Promise<void> {
    const named = this.prefix + channel;
    let set = this.handlers.get(named);
    if (!set) {
      set = new Set();
      this.handlers.set(named, set);
      await this.subscriber.subscribe(named);
    }
    set.add(handler);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.redis.publish(this.prefix + channel, message);
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
