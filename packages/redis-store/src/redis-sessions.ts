import type { ReplicaSessions, SessionRecord } from './ports.js';
import type { RedisChannels } from './redis-channels.js';
import { inRedis, type SharedRedis } from './redis-client.js';

const CLOSED_CHANNEL = 'toolhost:session:closed';
const COMPLETION_CHANNEL = 'toolhost:session:elicitation-complete';
const ANSWERS_CHANNEL = 'toolhost:session:client-answers';
/** Which session waits for a sign-in flow's completion, kept as long as the flow may complete. */
const awaitingKey = (elicitationId: string) => `toolhost:session:awaiting:${elicitationId}`;
/** Completion notices of a session not yet delivered to its client. */
const noticesKey = (id: string) => `toolhost:session:notices:${id}`;
const MAX_NOTICES = 100;

/**
 * MCP sessions shared by replicas through Redis, so that a client's requests may land on any
 * replica: one key per session id holding its record, expiring after the idle lifetime
 * unless used (each use, by any replica, extends it). A session ended by its client (HTTP
 * DELETE) is removed and its end published, so that every replica drops its copy.
 */
export class RedisSessions implements ReplicaSessions {
  /** When each session's expiry was last extended by this replica. */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly redis: SharedRedis,
    private readonly channels: RedisChannels,
    private readonly idleMs: number,
  ) {}

  private key = (id: string) => `toolhost:session:${id}`;

  save(id: string, record: SessionRecord): Promise<void> {
    this.touchedAt(id, Date.now());
    return inRedis(async () => {
      await this.redis.set(this.key(id), JSON.stringify(record), 'PX', this.idleMs);
    });
  }

  /** The session's record, or undefined when it never existed, expired or was ended. */
  async find(id: string): Promise<SessionRecord | undefined> {
    const text = await inRedis(() => this.redis.get(this.key(id)));
    return text === null ? undefined : (JSON.parse(text) as SessionRecord);
  }

  /**
   * Extends the session's life after a use. At most once per tenth of the idle lifetime per
   * replica (a Redis write per request would cost every call a round trip for nothing); a
   * failure is left to the next use.
   */
  touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < this.idleMs / 10) return;
    this.touchedAt(id, now);
    this.redis.pexpire(this.key(id), this.idleMs).catch(() => {});
  }

  /** Notes the extension; sessions idle past their lifetime are forgotten beyond 10,000. */
  private touchedAt(id: string, now: number): void {
    this.touched.set(id, now);
    if (this.touched.size > 10_000) {
      for (const [k, at] of this.touched) if (now - at > this.idleMs) this.touched.delete(k);
    }
  }

  /** Ends the session everywhere: its record goes, and every replica is told. */
  async remove(id: string): Promise<void> {
    this.touched.delete(id);
    await this.redis.del(this.key(id)).catch(() => {});
    await this.redis.del(noticesKey(id)).catch(() => {});
    await this.channels.publish(CLOSED_CHANNEL, id).catch(() => {});
  }

  /** Calls `handler` with the id of every session ended on any replica. */
  onClosed(handler: (id: string) => void): Promise<void> {
    return this.channels.listen(CLOSED_CHANNEL, (id) => {
      this.touched.delete(id);
      handler(id);
    });
  }

  async expectCompletion(id: string, elicitationId: string, ttlMs: number): Promise<void> {
    await inRedis(async () => {
      await this.redis.set(awaitingKey(elicitationId), id, 'PX', ttlMs);
    });
  }

  /**
   * Stores the notice before telling anyone, so that a replica that misses the message (none
   * holds the stream yet; the one that did just died) still finds it when the client's stream
   * comes back. The waiting record goes only once the notice is stored.
   */
  async completed(elicitationId: string): Promise<void> {
    const id = await inRedis(() => this.redis.get(awaitingKey(elicitationId)));
    if (id === null) return;
    await inRedis(async () => {
      // In one transaction: a connection lost between the two left a list that never expired,
      // for a session that may never come back to take it.
      const stored = await this.redis
        .multi()
        .rpush(noticesKey(id), elicitationId)
        .pexpire(noticesKey(id), this.idleMs)
        .exec();
      if (!stored || stored.some(([error]) => error)) throw new Error('notice not stored');
    });
    await this.redis.del(awaitingKey(elicitationId)).catch(() => {});
    await this.channels.publish(COMPLETION_CHANNEL, JSON.stringify({ id, elicitationId })).catch(() => {});
  }

  /** Calls `handler` for every completion notice published for a session, by any replica. */
  onCompletion(handler: (id: string, elicitationId: string) => void): Promise<void> {
    return this.channels.listen(COMPLETION_CHANNEL, (text) => {
      const { id, elicitationId } = JSON.parse(text) as { id: string; elicitationId: string };
      handler(id, elicitationId);
    });
  }

  async claimNotice(id: string, elicitationId: string): Promise<boolean> {
    return (await inRedis(() => this.redis.lrem(noticesKey(id), 1, elicitationId))) > 0;
  }

  async takeNotices(id: string): Promise<string[]> {
    const taken: string[] = [];
    // Each LPOP hands a notice to one replica only; a session has a few at most.
    for (let i = 0; i < MAX_NOTICES; i += 1) {
      const next = await inRedis(() => this.redis.lpop(noticesKey(id)));
      if (next === null) break;
      taken.push(next);
    }
    return taken;
  }

  /**
   * Hands the client's answers (JSON-RPC responses, such as a person's confirmation) to every
   * replica holding the session: the one that asked is waiting for them, wherever they landed.
   */
  async relayAnswers(id: string, messages: unknown[]): Promise<void> {
    await inRedis(() => this.channels.publish(ANSWERS_CHANNEL, JSON.stringify({ id, messages })));
  }

  /** Calls `handler` with the client answers relayed for a session, by any replica. */
  onAnswers(handler: (id: string, messages: unknown[]) => void): Promise<void> {
    return this.channels.listen(ANSWERS_CHANNEL, (text) => {
      const { id, messages } = JSON.parse(text) as { id: string; messages: unknown[] };
      handler(id, messages);
    });
  }
}
