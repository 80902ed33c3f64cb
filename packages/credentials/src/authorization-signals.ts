import type { AuthorizationSignals, FlowWaiters } from '@toolhost/redis-store';
import { MAX_PENDING_PER_USER, PENDING_TTL_MS } from './pending-authorizations.js';

export type { AuthorizationSignals };

/**
 * This process's waiters: bounded and expiring with the flows they wait for, so that
 * abandoned flows cannot grow memory. One lifetime for all makes insertion order expiry order.
 * Each owner (a provider's user) keeps as many as they may have flows pending, their oldest
 * making room for their newest (whose flow the pending store dropped alike), so that one
 * user's calls cannot push out everyone else's waiters; the bound in all only backs that up.
 */
export class LocalWaiters implements FlowWaiters {
  private readonly waiters = new Map<string, { callback: () => void; expiresAt: number; owner: string }>();
  private readonly byOwner = new Map<string, Set<string>>();

  constructor(
    private readonly ttlMs = PENDING_TTL_MS,
    private readonly max = 10_000,
    private readonly maxPerOwner = MAX_PENDING_PER_USER,
  ) {}

  add(flowId: string, callback: () => void, owner: string): void {
    const now = Date.now();
    this.remove(flowId);
    const mine = this.byOwner.get(owner) ?? new Set<string>();
    while (mine.size >= this.maxPerOwner) this.remove(mine.values().next().value as string);
    for (const [key, w] of this.waiters) {
      if (w.expiresAt > now && this.waiters.size < this.max) break;
      this.remove(key);
    }
    this.waiters.set(flowId, { callback, expiresAt: now + this.ttlMs, owner });
    this.byOwner.set(owner, mine.add(flowId));
  }

  /** Calls and forgets the flow's waiter, if this process has one. */
  fire(flowId: string): void {
    const waiter = this.waiters.get(flowId);
    if (!waiter) return;
    this.remove(flowId);
    if (waiter.expiresAt > Date.now()) waiter.callback();
  }

  private remove(flowId: string): void {
    const waiter = this.waiters.get(flowId);
    if (!waiter) return;
    this.waiters.delete(flowId);
    const mine = this.byOwner.get(waiter.owner);
    mine?.delete(flowId);
    if (mine?.size === 0) this.byOwner.delete(waiter.owner);
  }
}

/** One process: the completion is told to this process's waiters only. */
export class MemoryAuthorizationSignals implements AuthorizationSignals {
  private readonly waiters = new LocalWaiters();

  whenAuthorized(flowId: string, callback: () => void, owner: string): void {
    this.waiters.add(flowId, callback, owner);
  }

  async authorized(flowId: string): Promise<void> {
    this.waiters.fire(flowId);
  }
}
