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
    const now = Date.now();
    const slot = `${kind}\u0000${userId}`;
    const places = this.users.get(slot) ?? new Map<string, number>();
    for (const [placeId, expires] of places) if (expires <= now) places.delete(placeId);
    if (!places.has(id) && places.size >= max) {
      this.users.set(slot, places);
      return false;
    }
    places.set(id, now + ttlMs);
    this.users.set(slot, places);
    if (this.users.size > 10_000)
      for (const [key, held] of this.users)
        if ([...held.values()].every((t) => t <= now)) this.users.delete(key);
    return true;
  }

  async giveBack(kind: string, userId: string, id: string): Promise<void> {
    this.users.get(`${kind}\u0000${userId}`)?.delete(id);
  }
}
