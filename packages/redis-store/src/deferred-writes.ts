import { onceRedisAnswers, type SharedRedis } from './redis-client.js';

interface Deferred {
  bytes: number;
  /** When it is no longer worth writing (ms since the epoch). */
  until: number;
  write: () => Promise<unknown>;
  /** Whose it is, where each owner has a share ('' where none is named). */
  owner: string;
  /** Let go (written, past its deadline, or dropped for room): left in place until the next rebuild. */
  gone: boolean;
}

/** What one owner has waiting, its oldest from `head`. */
interface Owned {
  bytes: number;
  entries: number;
  items: Deferred[];
  head: number;
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
  /**
   * Oldest first from `head`. What is let go is marked and left in place, and the array rebuilt
   * once those outnumber the rest: taking one out by splicing cost a pass over all the others,
   * and an outage with many owners adding and dropping their own was quadratic (80,000 small
   * results took 10 s of the event loop).
   */
  private queue: Deferred[] = [];
  private head = 0;
  private live = 0;
  private bytes = 0;
  /** The earliest deadline among those kept, so that a check finds none past theirs at no cost. */
  private soonest = Number.POSITIVE_INFINITY;
  /** What each owner has waiting, oldest first, where kept per owner. */
  private readonly owned = new Map<string, Owned>();
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
    const deferred: Deferred = { bytes, until, write, owner, gone: false };
    if (this.share) {
      if (!this.roomFor(owner, bytes, this.share)) return false;
      const has = this.owned.get(owner) ?? { bytes: 0, entries: 0, items: [], head: 0 };
      has.bytes += bytes;
      has.entries += 1;
      has.items.push(deferred);
      this.owned.set(owner, has);
    }
    this.queue.push(deferred);
    this.live += 1;
    this.bytes += bytes;
    this.soonest = Math.min(this.soonest, until);
    while (this.bytes > this.maxBytes) this.forget(this.first()!);
    if (!this.draining) void this.drain();
    return true;
  }

  /** Whether `owner` may add `bytes` within its share and the bound (its own oldest let go, per `room`). */
  private roomFor(owner: string, bytes: number, share: OwnerShare): boolean {
    this.expire();
    const has = () => this.owned.get(owner) ?? { bytes: 0, entries: 0, items: [], head: 0 };
    const fits = () =>
      has().bytes + bytes <= share.bytes &&
      has().entries < share.entries &&
      this.bytes + bytes <= this.maxBytes;
    // Only where letting all its own go would make room: never some of them for nothing.
    const mayDrop = share.room === 'own oldest' && bytes <= share.bytes && share.entries > 0;
    if (mayDrop && this.bytes - has().bytes + bytes <= this.maxBytes)
      while (!fits()) {
        const own = this.owned.get(owner);
        // None of its own left (the check above rules it out): never another's.
        if (!own) break;
        while (own.items[own.head]!.gone) own.head += 1;
        this.forget(own.items[own.head]!);
      }
    return fits();
  }

  /** How many wait for Redis. */
  get size(): number {
    return this.live;
  }

  /** The oldest kept. */
  private first(): Deferred | undefined {
    this.compact();
    while (this.head < this.queue.length && this.queue[this.head]!.gone) this.head += 1;
    return this.queue[this.head];
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.expire() > 0) {
        let last = 0;
        for (let i = this.head; i < this.queue.length; i += 1)
          if (!this.queue[i]!.gone) last = Math.max(last, this.queue[i]!.until);
        await onceRedisAnswers(this.redis, () => this.writeAll(), last - Date.now());
      }
    } finally {
      this.draining = false;
    }
  }

  /** Writes those waiting, oldest first; rejects at the first Redis refuses, which waits with the rest. */
  private async writeAll(): Promise<void> {
    // A store closed (its replica stopping) takes nothing more: what waits goes with it.
    if (this.redis.status === 'end')
      for (let next = this.first(); next; next = this.first()) this.forget(next);
    while (this.expire() > 0) {
      const next = this.first()!;
      await next.write();
      // Unless let go meanwhile (past its deadline, or dropped for room).
      if (!next.gone) this.forget(next);
    }
  }

  /** Drops those past their deadline; how many are left. */
  private expire(): number {
    const now = Date.now();
    if (now < this.soonest) return this.live;
    this.soonest = Number.POSITIVE_INFINITY;
    for (let i = this.head; i < this.queue.length; i += 1) {
      const deferred = this.queue[i]!;
      if (deferred.gone) continue;
      if (deferred.until <= now) this.forget(deferred);
      else this.soonest = Math.min(this.soonest, deferred.until);
    }
    this.compact();
    return this.live;
  }

  /** Rebuilds the queue once those let go outnumber the rest (never while it is walked by index). */
  private compact(): void {
    if (this.queue.length - this.head <= 2 * this.live + 64) return;
    this.queue = this.queue.filter((d) => !d.gone);
    this.head = 0;
  }

  /** Lets `deferred` go, from the whole and from its owner's share. */
  private forget(deferred: Deferred): void {
    if (deferred.gone) return;
    deferred.gone = true;
    this.live -= 1;
    this.bytes -= deferred.bytes;
    const has = this.owned.get(deferred.owner);
    if (!has) return;
    has.bytes -= deferred.bytes;
    has.entries -= 1;
    if (has.entries === 0) this.owned.delete(deferred.owner);
    else if (has.items.length - has.head > 2 * has.entries + 16) {
      has.items = has.items.filter((d) => !d.gone);
      has.head = 0;
    }
  }
}
