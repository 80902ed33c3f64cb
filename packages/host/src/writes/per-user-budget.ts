/**
 * A bound per user on records that expire (previews, stored idempotency outcomes), counted
 * by this process: one user filling the host's records (memory, the file, Redis) cannot crowd
 * out the others. With replicas each counts what it wrote itself.
 */
export class PerUserBudget {
  /** Per user, when each of their live records expires. */
  private readonly users = new Map<string, number[]>();

  constructor(readonly max: number) {}

  /** Takes a place for `userId` for `ttlMs`; false when the user has `max` live ones already. */
  take(userId: string, ttlMs: number): boolean {
    const now = Date.now();
    const live = (this.users.get(userId) ?? []).filter((t) => t > now);
    if (live.length >= this.max) {
      this.users.set(userId, live);
      return false;
    }
    live.push(now + ttlMs);
    this.users.set(userId, live);
    if (this.users.size > 10_000)
      for (const [user, times] of this.users) if (times.every((t) => t <= now)) this.users.delete(user);
    return true;
  }

  /** Gives back the place taken last (its record was not kept after all). */
  giveBack(userId: string): void {
    this.users.get(userId)?.pop();
  }
}
