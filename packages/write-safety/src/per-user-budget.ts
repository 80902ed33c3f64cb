import type { PerUserPlaces } from '@toolhost/redis-store';

export type { PerUserPlaces };

/**
 * The places counted by this process: the bound of one host (memory, the host's own file).
 * Replicas count theirs in the shared store instead (@toolhost/redis-store).
 */
export class ProcessPlaces implements PerUserPlaces {
  /** Per kind and user, when each of their live places expires. */
  private readonly users = new Map<string, Map<string, number>>();
  readonly scope = 'on this host';

  async take(kind: string, userId: string, id: string, max: number, ttlMs: number): Promise<boolean> {
    return this.claim(kind, userId, id, max, ttlMs);
  }

  async giveBack(kind: string, userId: string, id: string): Promise<void> {
    this.release(kind, userId, id);
  }

  /** `take` at once, for a store that keeps the places beside records of its own (the host's file). */
  claim(kind: string, userId: string, id: string, max: number, ttlMs: number): boolean {
    const now = Date.now();
    const slot = slotOf(kind, userId);
    const places = this.users.get(slot) ?? new Map<string, number>();
    for (const [placeId, expires] of places) if (expires <= now) places.delete(placeId);
    if (!places.has(id) && places.size >= max) return false;
    places.set(id, now + ttlMs);
    this.users.set(slot, places);
    // Users come and go: those whose places have all expired are forgotten past 10,000.
    if (this.users.size > 10_000)
      for (const [key, held] of this.users)
        if ([...held.values()].every((t) => t <= now)) this.users.delete(key);
    return true;
  }

  release(kind: string, userId: string, id: string): void {
    const slot = slotOf(kind, userId);
    const places = this.users.get(slot);
    places?.delete(id);
    if (places?.size === 0) this.users.delete(slot);
  }

  /** A place read back from where it was kept, expiring at `expires` (ms since the epoch). */
  restore(kind: string, userId: string, id: string, expires: number): void {
    const slot = slotOf(kind, userId);
    this.users.set(slot, (this.users.get(slot) ?? new Map<string, number>()).set(id, expires));
  }

  clear(): void {
    this.users.clear();
  }
}

const slotOf = (kind: string, userId: string) => `${kind}\u0000${userId}`;
