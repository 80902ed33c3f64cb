import type { Cluster, Redis } from 'ioredis';
import { watchClusterSubscriber } from './cluster-subscriber-watch.js';
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
  /** Told each time the channels are heard again after the subscriber reconnected. */
  private readonly resubscribed = new Set<() => void>();
  /** ioredis puts `store.keyPrefix` before keys only: channels get it here. */
  private readonly prefix: string;
  /** Stops watching a cluster's subscriber connection. */
  private readonly unwatch: () => void = () => {};

  private constructor(
    private readonly redis: SharedRedis,
    private readonly subscriber: SharedRedis,
    private readonly logger?: StoreLogger,
  ) {
    this.prefix = redis.options.keyPrefix ?? '';
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    // A cluster's client subscribes again by itself, and handles the outcome; it moves the
    // subscription to another node silently, and not off a node that hangs (see the watch).
    if (!subscriber.isCluster) subscriber.on('ready', () => this.subscribeAgain());
    else {
      subscriber.on('ready', () => this.heardAgain());
      const timeoutMs = Math.min((subscriber as Cluster).options.redisOptions?.commandTimeout ?? 5000, 2000);
      const moved = () => {
        this.logger?.debug('shared store (Redis): subscriber moved to another cluster node');
        this.heardAgain();
      };
      this.unwatch = watchClusterSubscriber(subscriber as Cluster, moved, {
        everyMs: 1000,
        timeoutMs,
      });
    }
  }

  /**
   * On every (re)connection, the channels listened to (ioredis's own resubscription is off: see
   * `open`). A failure is only noted: a connection that closed runs this again when it is ready
   * again, and a SUBSCRIBE that timed out on a frozen Redis still reaches it when it thaws.
   */
  private subscribeAgain(): void {
    const channels = [...this.handlers.keys()];
    if (channels.length === 0) return;
    this.subscriber.subscribe(...channels).then(
      () => this.heardAgain(),
      (e: unknown) => {
        this.logger?.debug(`shared store (Redis): subscribing again failed: ${(e as Error).message}`);
      },
    );
  }

  static async open(redis: SharedRedis, logger?: StoreLogger): Promise<RedisChannels> {
    // Queued commands here are only the re-subscription after a reconnect, which must wait for
    // the connection rather than fail. That re-subscription is this class's, not ioredis's
    // (autoResubscribe): ioredis sends its SUBSCRIBE with no handler, and a subscriber closed
    // while it reconnects (a host stopping as Redis comes back: the ready check answered after
    // QUIT ended the socket) then rejects it "Connection is closed." as an unhandled rejection,
    // which fails a test run and, where unhandled rejections are fatal, stops the process.
    const subscriber: SharedRedis = redis.isCluster
      ? (redis as Cluster).duplicate([], { enableOfflineQueue: true, lazyConnect: true })
      : (redis as Redis).duplicate({ enableOfflineQueue: true, lazyConnect: true, autoResubscribe: false });
    // Its outages are the main connection's too, which logs them.
    subscriber.on('error', () => {});
    await subscriber.connect();
    logger?.debug('shared store (Redis): subscriber connected');
    return new RedisChannels(redis, subscriber, logger);
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

  /**
   * Calls `listener` each time the channels are heard again after a reconnection: what was
   * published meanwhile never reached this replica.
   */
  onResubscribed(listener: () => void): void {
    this.resubscribed.add(listener);
  }

  private heardAgain(): void {
    for (const listener of this.resubscribed) listener();
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.redis.publish(this.prefix + channel, message);
  }

  async close(): Promise<void> {
    this.unwatch();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
