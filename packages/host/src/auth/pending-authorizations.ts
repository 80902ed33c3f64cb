export interface PendingAuthorization {
  userId: string;
  codeVerifier: string;
  scopes: string[];
  /**
   * Names the flow in the link the user opens on the host; the `state` itself travels only to
   * the authorization server and back, after the host has bound a browser to the flow.
   */
  flowId: string;
  /** The authorization server's URL that the host's start step redirects to. */
  authorizeUrl: string;
  /** Set once a browser has been bound to the flow. */
  opened: boolean;
  expiresAt: number;
}

export type NewAuthorization = Omit<PendingAuthorization, 'expiresAt' | 'opened'>;

/** How long a pending authorization (and the browser cookie bound to it) lives. */
export const PENDING_TTL_MS = 10 * 60_000;
/** Pending flows per user and provider; the oldest makes room for the newest. */
export const MAX_PENDING_PER_USER = 32;

/**
 * Where authorization requests wait for their callback, keyed by `state` and found by flow
 * id: this process's memory, or Redis shared by replicas (store/redis-pending-authorizations.ts),
 * where the link handed out by one replica may be opened, and its callback land, on any other.
 * Answers may be immediate (memory) or not (Redis); callers await them either way.
 */
export interface PendingAuthorizationStore {
  add(state: string, entry: NewAuthorization): void | Promise<void>;
  /** The unexpired entry for `state`, left in place. */
  get(state: string): PendingAuthorization | undefined | Promise<PendingAuthorization | undefined>;
  /** The unexpired entry a flow id names, with its state. */
  byFlow(
    flowId: string,
  ):
    | { state: string; entry: PendingAuthorization }
    | undefined
    | Promise<{ state: string; entry: PendingAuthorization } | undefined>;
  /** Records that a browser has been bound to the flow. */
  markOpened(flowId: string): void | Promise<void>;
  /** Removes and returns the entry for `state`, once: a second take finds nothing. */
  take(state: string): PendingAuthorization | undefined | Promise<PendingAuthorization | undefined>;
}

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
