import type { AuthorizationSignals } from '@toolhost/redis-store';
import { PENDING_TTL_MS } from './pending-authorizations.js';

export type { AuthorizationSignals };

/**
 * This process's waiters: bounded and expiring with the flows they wait for, so that
 * abandoned flows cannot grow memory. One lifetime for all makes insertion order expiry order.
 */
export class LocalWaiters {
  private readonly waiters = new Map<string, { callback: () => void; expiresAt: number }>();

  constructor(
    private readonly ttlMs = PENDING_TTL_MS,
    private readonly max = 10_000,
  ) {}

  add(flowId: string, callback: () => void): void {
    const now = Date.now();
    for (const [key, w] of this.waiters) {
      if (w.expiresAt > now && this.waiters.size < this.max) break;
      this.waiters.delete(key);
    }
    this.waiters.delete(flowId);
    this.waiters.set(flowId, { callback, expiresAt: now + this.ttlMs });
  }

  /** Calls and forgets the flow's waiter, if this process has one. */
  fire(flowId: string): void {
    const waiter = this.waiters.get(flowId);
    if (!waiter) return;
    this.waiters.delete(flowId);
    if (waiter.expiresAt > Date.now()) waiter.callback();
  }
}

/** One process: the completion is told to this process's waiters only. */
export class MemoryAuthorizationSignals implements AuthorizationSignals {
  private readonly waiters = new LocalWaiters();

  whenAuthorized(flowId: string, callback: () => void): void {
    this.waiters.add(flowId, callback);
  }

  async authorized(flowId: string): Promise<void> {
    this.waiters.fire(flowId);
  }
}
