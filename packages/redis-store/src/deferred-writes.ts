import { onceRedisAnswers, type SharedRedis } from './redis-client.js';

interface Deferred {
  bytes: number;
  /** When it is no longer worth writing (ms since the epoch). */
  until: number;
  write: () => Promise<unknown>;
  /** Whose it is, where each owner has a share ('' where none is named). */
  owner: string;
}

/** The most one owner may have waiting, where writes are kept per owner. */
export interface OwnerShare {
  bytes: number;
  entries: number;
}

/**
 * Writes Redis refused while it was away (restarting, failing over), made again once it answers,
 * in the order they were first tried: what other replicas would otherwise never see of a
 * moment's outage (a result made then, a cancellation taken then). Each is kept until its own
 * deadline: what they hold stays in memory meanwhile.
 *
 * Without `share`, the oldest are dropped beyond `maxBytes` (what is dropped is still held by
 * this replica). With it, each add names its owner, and one that would take its owner past the
 * share, or the whole past `maxBytes`, is refused: nothing kept is dropped for room, so that one
 * owner (a user sending made-up cancellations) cannot push out another's, which were taken.
 */
export class DeferredWrites {
  private readonly queue: Deferred[] = [];
  private bytes = 0;
  /** What each owner has waiting, where kept per owner. */
  private readonly owned = new Map<string, OwnerShare>();
  private draining = false;

  constructor(
    private readonly redis: SharedRedis,
    private readonly maxBytes: number,
    private readonly share?: OwnerShare,
  ) {}

  /**
   * Makes `write` again once Redis answers, until `until`; false when it is not kept: larger than
   * the bound alone, already late, or (with shares) beyond its owner's share or the room left.
   */
  add(bytes: number, until: number, write: () => Promise<unknown>, owner = ''): boolean {
    if (bytes > this.maxBytes || until <= Date.now()) return false;
    if (this.share) {
      this.expire();
      const has = this.owned.get(owner) ?? { bytes: 0, entries: 0 };
      const fits = has.bytes + bytes <= this.share.bytes && has.entries < this.share.entries;
      if (!fits || this.bytes + bytes > this.maxBytes) return false;
      this.owned.set(owner, { bytes: has.bytes + bytes, entries: has.entries + 1 });
    }
    this.queue.push({ bytes, until, write, owner });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) this.forget(0);
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
    if (this.redis.status === 'end') while (this.queue.length > 0) this.forget(0);
    while (this.expire() > 0) {
      const next = this.queue[0]!;
      await next.write();
      if (this.queue[0] === next) this.forget(0);
    }
  }

  /** Drops those past their deadline; how many are left. */
  private expire(): number {
    const now = Date.now();
    for (let i = this.queue.length - 1; i >= 0; i -= 1) if (this.queue[i]!.until <= now) this.forget(i);
    return this.queue.length;
  }

  /** Takes the `i`th out, from the whole and from its owner's share. */
  private forget(i: number): void {
    const gone = this.queue.splice(i, 1)[0]!;
    this.bytes -= gone.bytes;
    const has = this.owned.get(gone.owner);
    if (!has) return;
    if (has.entries === 1) this.owned.delete(gone.owner);
    else this.owned.set(gone.owner, { bytes: has.bytes - gone.bytes, entries: has.entries - 1 });
  }
}
