import { onceRedisAnswers, type SharedRedis } from './redis-client.js';

interface Deferred {
  bytes: number;
  /** When it is no longer worth writing (ms since the epoch). */
  until: number;
  write: () => Promise<unknown>;
}

/**
 * Writes Redis refused while it was away (restarting, failing over), made again once it answers,
 * in the order they were first tried: what other replicas would otherwise never see of a
 * moment's outage (a result made then, a cancellation taken then). Each is kept until its own
 * deadline, the oldest dropped beyond `maxBytes`: what they hold stays in memory meanwhile.
 */
export class DeferredWrites {
  private readonly queue: Deferred[] = [];
  private bytes = 0;
  private draining = false;

  constructor(
    private readonly redis: SharedRedis,
    private readonly maxBytes: number,
  ) {}

  /** Makes `write` again once Redis answers, until `until`; one larger than the bound alone is not kept (false). */
  add(bytes: number, until: number, write: () => Promise<unknown>): boolean {
    if (bytes > this.maxBytes || until <= Date.now()) return false;
    this.queue.push({ bytes, until, write });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) this.drop();
    if (!this.draining) void this.drain();
    return true;
  }

  /** How many wait for Redis. */
  get size(): number {
    return this.queue.length;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.expire() > 0) {
        const last = Math.max(...this.queue.map((d) => d.until));
        await onceRedisAnswers(this.redis, () => this.writeAll(), last - Date.now());
      }
    } finally {
      this.draining = false;
    }
  }

  /** Writes those waiting, oldest first; rejects at the first Redis refuses, which waits with the rest. */
  private async writeAll(): Promise<void> {
    // A store closed (its replica stopping) takes nothing more: what waits goes with it.
    if (this.redis.status === 'end') while (this.queue.length > 0) this.drop();
    while (this.expire() > 0) {
      const next = this.queue[0]!;
      await next.write();
      if (this.queue[0] === next) this.drop();
    }
  }

  /** Drops those past their deadline; how many are left. */
  private expire(): number {
    const now = Date.now();
    for (let i = this.queue.length - 1; i >= 0; i -= 1)
      if (this.queue[i]!.until <= now) this.bytes -= this.queue.splice(i, 1)[0]!.bytes;
    return this.queue.length;
  }

  private drop(): void {
    this.bytes -= this.queue.shift()!.bytes;
  }
}
