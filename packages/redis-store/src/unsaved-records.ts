import { onceRedisAnswers, type SharedRedis } from './redis-client.js';

/** How many a replica keeps to delete: past that, a record left expires after its idle lifetime. */
const KEPT = 1_000;

/**
 * Records whose write failed but may have landed (sent to a Redis that froze, applied when it
 * thaws), deleted once Redis answers. One loop drains them all: a loop per failed write, while
 * Redis stayed away, kept the event loop busy and a listener each (thousands of refused opens).
 */
export class UnsavedRecords {
  private readonly ids = new Set<string>();
  private draining = false;

  constructor(
    private readonly redis: SharedRedis,
    private readonly key: (id: string) => string,
    private readonly forMs: number,
  ) {}

  add(id: string): void {
    if (this.ids.size >= KEPT) return;
    this.ids.add(id);
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    const deleteAll = async () => {
      // A Set's iteration also visits what is added meanwhile.
      for (const id of this.ids) {
        await this.redis.del(this.key(id));
        this.ids.delete(id);
      }
    };
    void onceRedisAnswers(this.redis, deleteAll, this.forMs).finally(() => {
      this.draining = false;
      // Redis still away past the loop's patience, or ids added as it ended: another loop.
      if (this.ids.size > 0) this.drain();
    });
  }
}
