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
  /**
   * What makes room for a write that would take its owner past the share, or the whole past its
   * bound: by default nothing (it is refused); `own oldest`, the owner's own oldest writes.
   */
  room?: 'own oldest';
}

/**
 * Writes Redis refused while it was away (restarting, failing over), made again once it answers,
 * in the order they were first tried: what other replicas would otherwise never see of a
 * moment's outage (a result made then, a cancellation taken then). Each is kept until its own
 * deadline: what they hold stays in memory meanwhile.
 *
 * Without `share`, the oldest are dropped beyond `maxBytes` (what is dropped is still held by
 * this replica). With it, each add names its owner, and one that would take its owner past the
 * share, or the whole past `maxBytes`, is refused, unless the owner's own oldest make room (the
 * share's `room`): nothing kept is dropped for another owner, so that one (a user sending made-up
 * cancellations, or making result after result) cannot push out another's.
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
   * the bound alone, already late, or (with shares) beyond its owner's share or the room left
   * (where its own oldest cannot make room).
   */
  add(bytes: number, until: number, write: () => Promise<unknown>, owner = ''): boolean {
    if (bytes > this.maxBytes || until <= Date.now()) return false;
    if (this.share) {
      if (!this.roomFor(owner, bytes, this.share)) return false;
      const has = this.has(owner);
      this.owned.set(owner, { bytes: has.bytes + bytes, entries: has.entries + 1 });
    }
    this.queue.push({ bytes, until, write, owner });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) this.forget(0);
    if (!this.draining) void this.drain();
    return true;
  }

  /** Whether `owner` may add `bytes` within its share and the bound (its own oldest let go, per `room`). */
  private roomFor(owner: string, bytes: number, share: OwnerShare): boolean {
    this.expire();
    const fits = () => {
      const has = this.has(owner);
      return (
        has.bytes + bytes <= share.bytes && has.entries < share.entries && this.bytes + bytes <= this.maxBytes
      );
    };
    // Only where letting all its own go would make room: never some of them for nothing.
    const mayDrop = share.room === 'own oldest' && bytes <= share.bytes && share.entries > 0;
    if (mayDrop && this.bytes - this.has(owner).bytes + bytes <= this.maxBytes)
      while (!fits()) {
        const oldest = this.queue.findIndex((d) => d.owner === owner);
        // None of its own left (the check above rules it out): never splice(-1), another's.
        if (oldest < 0) break;
        this.forget(oldest);
      }
    return fits();
  }

  /** What `owner` has waiting. */
  private has(owner: string): OwnerShare {
    return this.owned.get(owner) ?? { bytes: 0, entries: 0 };
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
