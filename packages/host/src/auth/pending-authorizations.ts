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

/**
 * Authorization requests awaiting their callback, keyed by `state` (and found by flow id).
 * Bounded and expiring, so abandoned flows cannot grow memory; each state is good for one
 * callback only.
 */
export class PendingAuthorizations {
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly flows = new Map<string, string>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  add(state: string, entry: NewAuthorization): void {
    const now = this.now();
    for (const [key, p] of this.pending) if (p.expiresAt <= now) this.remove(key);
    while (this.pending.size >= this.max) this.remove(this.pending.keys().next().value as string);
    this.pending.set(state, { ...entry, opened: false, expiresAt: now + this.ttlMs });
    this.flows.set(entry.flowId, state);
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

  /** Removes and returns the entry for `state` if it exists and has not expired. */
  take(state: string): PendingAuthorization | undefined {
    const entry = this.get(state);
    this.remove(state);
    return entry;
  }

  private remove(state: string): void {
    const entry = this.pending.get(state);
    if (entry) this.flows.delete(entry.flowId);
    this.pending.delete(state);
  }
}
