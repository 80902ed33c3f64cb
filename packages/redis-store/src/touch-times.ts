/**
 * When this replica last extended each session's expiry, so that it extends one at most once
 * per tenth of the idle lifetime. Kept in the order of the last extension (a Map's insertion
 * order, an entry moved to the end when renewed): those past the idle lifetime are at the
 * front, and forgetting them stops at the first still fresh, so that a note costs the same with
 * a million entries as with ten. Beyond `cap` the oldest go even when fresh: one forgotten costs
 * one extension more, never a session, where keeping them all let a stream of sessions, opened
 * faster than they idle out, grow the map without bound.
 */
export class TouchTimes {
  private readonly at = new Map<string, number>();

  constructor(
    private readonly idleMs: number,
    private readonly cap = 10_000,
  ) {}

  get size(): number {
    return this.at.size;
  }

  /** When `id` was last noted, 0 if never (or forgotten). */
  last(id: string): number {
    return this.at.get(id) ?? 0;
  }

  note(id: string, now: number): void {
    this.at.delete(id);
    this.at.set(id, now);
    for (const [oldest, when] of this.at) {
      if (this.at.size <= this.cap && now - when <= this.idleMs) break;
      this.at.delete(oldest);
    }
  }

  forget(id: string): void {
    this.at.delete(id);
  }
}
