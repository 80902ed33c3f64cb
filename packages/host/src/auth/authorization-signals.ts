import { PENDING_TTL_MS } from './pending-authorizations.js';

/**
 * Who waits for which authorization flow to complete (an MCP session that told its client to
 * authorize, by URL elicitation). In one process the completion is told directly; with
 * replicas it travels over Redis pub/sub (store/redis-authorization-signals.ts), since the
 * callback may land on any replica and the waiting client be connected to another.
 */
export interface AuthorizationSignals {
  /** Calls `callback` once if the flow completes (on any replica) within a pending flow's life. */
  whenAuthorized(flowId: string, callback: () => void): void;
  /** Tells every waiter of the flow, wherever it waits, that it completed. */
  authorized(flowId: string): Promise<void>;
  close?(): Promise<void>;
}

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
