import type { StoredToken } from '@toolhost/core';

/** How long a token read from Redis is reused by this replica's calls. */
export const RECENT_TOKEN_MS = 100;
const SWEEP_AT = 1000;

/**
 * Tokens this replica read from Redis in the last RECENT_TOKEN_MS, for the reads of each
 * call. On a loopback Redis, a GET still costs a call 0.3 to 0.5 ms (waking the Redis process
 * and back); a user's calls in a burst share one read instead. Concurrent reads of one token
 * share one GET too.
 *
 * A copy is dropped as soon as any replica changes the token (its set or delete is
 * published), and a read that a change overtook is not kept, so a copy never outlives a
 * change by more than the time a message takes between replicas. The short life bounds what
 * a lost message or a lost Redis could cost: after RECENT_TOKEN_MS, calls read Redis again,
 * and answer `store_unavailable` if it is gone; tokens never live on in memory without it.
 * Hand-written because it must follow the store's own change messages; a generic cache
 * library would add nothing but its own expiry.
 *
 * Only the per-call reads use this; a refresh, under the shared lock, always reads Redis.
 */
export class RecentTokens {
  private readonly copies = new Map<string, { token: StoredToken; until: number }>();
  private readonly reading = new Map<string, Promise<StoredToken | undefined>>();
  /** Counts changes, so that a read started before one is not kept after it. */
  private changes = 0;

  constructor(
    private readonly lifeMs = RECENT_TOKEN_MS,
    private readonly now: () => number = Date.now,
  ) {}

  read(key: string, load: () => Promise<StoredToken | undefined>): Promise<StoredToken | undefined> {
    const copy = this.copies.get(key);
    if (copy && copy.until > this.now()) return Promise.resolve(copy.token);
    let flight = this.reading.get(key);
    if (!flight) {
      const changes = this.changes;
      flight = load()
        .then((token) => {
          if (token && changes === this.changes) this.keep(key, token);
          else this.copies.delete(key);
          return token;
        })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, flight);
    }
    return flight;
  }

  private keep(key: string, token: StoredToken): void {
    const now = this.now();
    // Copies of users who stopped calling are dropped here, not by a timer.
    if (this.copies.size >= SWEEP_AT)
      for (const [k, c] of this.copies) if (c.until <= now) this.copies.delete(k);
    this.copies.set(key, { token, until: now + this.lifeMs });
  }

  /** The token of `key` changed (here or on another replica): the next read goes to Redis. */
  changed(key: string): void {
    this.changes += 1;
    this.copies.delete(key);
    this.reading.delete(key);
  }
}
