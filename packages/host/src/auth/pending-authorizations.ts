export interface PendingAuthorization {
  userId: string;
  codeVerifier: string;
  scopes: string[];
  expiresAt: number;
}

/**
 * Authorization requests awaiting their callback, keyed by `state`. Bounded and expiring, so
 * abandoned flows cannot grow memory; each state is good for one callback only.
 */
export class PendingAuthorizations {
  private readonly pending = new Map<string, PendingAuthorization>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  add(state: string, entry: Omit<PendingAuthorization, 'expiresAt'>): void {
    const now = this.now();
    for (const [key, p] of this.pending) if (p.expiresAt <= now) this.pending.delete(key);
    while (this.pending.size >= this.max) this.pending.delete(this.pending.keys().next().value as string);
    this.pending.set(state, { ...entry, expiresAt: now + this.ttlMs });
  }

  /** Removes and returns the entry for `state` if it exists and has not expired. */
  take(state: string): PendingAuthorization | undefined {
    const entry = this.pending.get(state);
    this.pending.delete(state);
    return entry && entry.expiresAt > this.now() ? entry : undefined;
  }
}
