import type {
  NewAuthorization,
  PendingAuthorization,
  PendingAuthorizationStore,
} from '@toolhost/redis-store';

export type { NewAuthorization, PendingAuthorization, PendingAuthorizationStore };

/** How long a pending authorization (and the browser cookie bound to it) lives. */
export const PENDING_TTL_MS = 10 * 60_000;
/** Pending flows per user and provider; the oldest makes room for the newest. */
export const MAX_PENDING_PER_USER = 32;

/**
 * Authorization requests awaiting their callback, keyed by `state` (and found by flow id).
 * Bounded and expiring, so abandoned flows cannot grow memory; each state is good for one
 * callback only. Each user has a cap of their own (their oldest flow makes room for their
 * newest), so that one user's calls cannot push out everyone else's pending flows; the
 * host-wide cap only backs that up.
 */
export class PendingAuthorizations implements PendingAuthorizationStore {
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly flows = new Map<string, string>();
  private readonly byUser = new Map<string, Set<string>>();

  constructor(
    private readonly ttlMs = PENDING_TTL_MS,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
    private readonly maxPerUser = MAX_PENDING_PER_USER,
  ) {}

  add(state: string, entry: NewAuthorization): void {
    const now = this.now();
    // Insertion order is expiry order (one lifetime for all): expired entries lead the map.
    for (const [key, p] of this.pending) {
      if (p.expiresAt > now) break;
      this.remove(key);
    }
    const mine = this.byUser.get(entry.userId) ?? new Set<string>();
    while (mine.size >= this.maxPerUser) this.remove(mine.values().next().value as string);
    while (this.pending.size >= this.max) this.remove(this.pending.keys().next().value as string);
    this.pending.set(state, { ...entry, opened: false, expiresAt: now + this.ttlMs });
    this.flows.set(entry.flowId, state);
    mine.add(state);
    this.byUser.set(entry.userId, mine);
  }

  /** The unexpired entry for `state`, left in place. */
  get(state: string): PendingAuthorization | undefined {
    const entry = this.pending.get(state);
    return entry && entry.expiresAt > this.now() ? entry : undefined;
  }

  /** The unexpired entry a flow id names, with its state. */
  byFlow(flowId: string): { state: string; entry: PendingAuthorization } | undefined {
    const state = this.flows.get(flowId);
    const entry = state === undefined ? undefined : this.get(state);
    return entry ? { state: state!, entry } : undefined;
  }

  markOpened(flowId: string): void {
    const found = this.byFlow(flowId);
    if (found) found.entry.opened = true;
  }

  /** Removes and returns the entry for `state` if it exists and has not expired. */
  take(state: string): PendingAuthorization | undefined {
    const entry = this.get(state);
    this.remove(state);
    return entry;
  }

  private remove(state: string): void {
    const entry = this.pending.get(state);
    if (!entry) return;
    this.pending.delete(state);
    this.flows.delete(entry.flowId);
    const mine = this.byUser.get(entry.userId);
    mine?.delete(state);
    if (mine?.size === 0) this.byUser.delete(entry.userId);
  }
}
