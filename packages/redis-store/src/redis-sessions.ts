import { randomUUID } from 'node:crypto';
import { DeferredWrites } from './deferred-writes.js';
import type { ReplicaSessions, SessionRecord } from './ports.js';
import type { RedisChannels } from './redis-channels.js';
import { execAll, inRedis, onceRedisAnswers, type SharedRedis } from './redis-client.js';
import { ANSWERS_CHANNEL, ANSWERS_KEPT_MS, answersKey, relayOf } from './session-relays.js';
import { TouchTimes } from './touch-times.js';
import { UnsavedRecords } from './unsaved-records.js';

const CLOSED_CHANNEL = 'toolhost:session:closed';
const COMPLETION_CHANNEL = 'toolhost:session:elicitation-complete';
/** Which session waits for a sign-in flow's completion, kept as long as the flow may complete. */
export const awaitingKey = (elicitationId: string) => `toolhost:session:awaiting:${elicitationId}`;
/** Completion notices of a session not yet delivered to its client. */
const noticesKey = (id: string) => `toolhost:session:notices:${id}`;
const MAX_NOTICES = 100;
/**
 * How long a take of notices is recorded: a take whose answer was lost (the connection cut
 * after Redis ran it) is sent again by the Redis client once it reconnects, and must find what
 * it took, not an emptied list (the notices delivered by no one).
 */
const TAKEN_MS = 60_000;
// Takes notice ARGV[1] from KEYS[1], recording the take at KEYS[2]; 1 if this take has it.
const CLAIM_NOTICE = `
if redis.call('LREM', KEYS[1], 1, ARGV[1]) > 0 then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then return 1 end
return 0
`;
// Takes up to ARGV[1] notices from KEYS[1], with those this take (KEYS[2]) had already.
const TAKE_NOTICES = `
local taken = {}
local earlier = redis.call('GET', KEYS[2])
if earlier then taken = cjson.decode(earlier) end
local more = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #more > 0 then redis.call('LTRIM', KEYS[1], #more, -1) end
for _, notice in ipairs(more) do taken[#taken + 1] = notice end
if #taken > 0 then redis.call('SET', KEYS[2], cjson.encode(taken), 'PX', ARGV[2]) end
return taken
`;
/** Relays this replica handed on (heard, or read back), so that each is handed on once. */
const MAX_HANDED = 10_000;
/** Bytes of cancellations kept while Redis is away, to be relayed once it answers. */
const MAX_DEFERRED_BYTES = 1024 * 1024;
/**
 * One user's share of them: a sixteenth, so that one user sending cancellations for made-up
 * sessions (each answered and kept, as a real one would be) leaves the others their room. A
 * client cancels a few calls in a minute's outage; 256 is far beyond that.
 */
const USER_DEFERRED_SHARE = { bytes: MAX_DEFERRED_BYTES / 16, entries: 256 };
/** MCP's logging levels: a `logging/setLevel` naming another is not shared. */
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
const isCancellation = (m: unknown) =>
  (m as { method?: unknown } | null)?.method === 'notifications/cancelled';

/**
 * MCP sessions shared by replicas through Redis, so that a client's requests may land on any
 * replica: one key per session id holding its record, expiring after the idle lifetime
 * unless used (each use, by any replica, extends it). A session ended by its client (HTTP
 * DELETE) is removed and its end published, so that every replica drops its copy; one that
 * missed the message (its subscriber reconnecting) drops it on finding the record gone, once
 * subscribed again or when it next extends the session's life.
 */
export class RedisSessions implements ReplicaSessions {
  /** When each session's expiry was last extended by this replica. */
  private readonly touched: TouchTimes;
  /** Records of failed opens that may have landed, deleted once Redis answers (one loop for all). */
  private readonly unsaved: UnsavedRecords;
  private readonly handed = new Set<string>();
  /** Told of a session ended elsewhere that this replica learnt of without its notice. */
  private readonly closed = new Set<(id: string) => void>();
  /** Cancellations Redis could not take, relayed once it answers. */
  readonly deferred: DeferredWrites;

  constructor(
    private readonly redis: SharedRedis,
    private readonly channels: RedisChannels,
    private readonly idleMs: number,
  ) {
    this.deferred = new DeferredWrites(redis, MAX_DEFERRED_BYTES, USER_DEFERRED_SHARE);
    this.touched = new TouchTimes(idleMs);
    this.unsaved = new UnsavedRecords(redis, this.key, idleMs);
  }

  private key = (id: string) => `toolhost:session:${id}`;

  async save(id: string, record: SessionRecord): Promise<void> {
    const at = Date.now();
    // Refused unsent where the connection is not ready (no offline queue): nothing to undo then.
    const sent = this.redis.status === 'ready';
    try {
      await inRedis(() => this.redis.set(this.key(id), JSON.stringify(record), 'PX', this.idleMs));
    } catch (e) {
      // A SET that timed out on a frozen Redis still lands when it thaws: a session whose opening
      // failed (its client never told the id) would be left in the store, counted nowhere.
      if (sent) this.unsaved.add(id);
      throw e;
    }
    // Only once stored: a refused open (Redis away) is retried under a new id, and noting each
    // filled the map with sessions that never were.
    this.touched.note(id, at);
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
    if (now - this.touched.last(id) < this.idleMs / 10) return;
    this.touched.note(id, now);
    // No record to extend: the session was ended elsewhere, and this replica missed the notice.
    this.redis.pexpire(this.key(id), this.idleMs).then(
      (extended) => {
        if (extended === 0) for (const ended of this.closed) ended(id);
      },
      () => {},
    );
  }

  /**
   * Ends the session everywhere: its record goes, and every replica is told. With Redis away,
   * once it answers again: a record left behind would let any replica rebuild the session, and
   * those holding it serve it, until it idled out (the client heard it ended).
   */
  async remove(id: string): Promise<void> {
    this.touched.forget(id);
    if (await this.endEverywhere(id)) return;
    const ended = async () => {
      if (!(await this.endEverywhere(id))) throw new Error('Redis still away');
    };
    void onceRedisAnswers(this.redis, ended, this.idleMs);
  }

  /** Whether the session's record is gone (its end then told to every replica). */
  private async endEverywhere(id: string): Promise<boolean> {
    try {
      await this.redis.del(this.key(id));
    } catch {
      return false;
    }
    // One DEL each: in a Cluster they lie in other slots, and one DEL of both is refused (CROSSSLOT).
    await Promise.all([noticesKey(id), answersKey(id)].map((key) => this.redis.del(key).catch(() => {})));
    await this.channels.publish(CLOSED_CHANNEL, id).catch(() => {});
    return true;
  }

  /**
   * Calls `handler` with the id of every session ended on any replica; after a reconnection of
   * the subscriber, also with those of the sessions `held` names whose record is gone, since
   * their end's message never reached this replica, which would serve them until idle.
   */
  async onClosed(handler: (id: string) => void, held: () => Iterable<string> = () => []): Promise<void> {
    const ended = (id: string) => {
      this.touched.forget(id);
      handler(id);
    };
    this.closed.add(ended);
    this.channels.onResubscribed(() => this.whenReady(() => this.endMissed([...held()], ended)));
    await this.channels.listen(CLOSED_CHANNEL, ended);
  }

  /**
   * Runs a read-back once the commands' connection is up: after Redis restarted or failed over,
   * the subscriber may be back before it, and commands are not queued while it is down, so a
   * read-back run then would find nothing and what the subscriber missed would stay missed.
   */
  private whenReady(readBack: () => Promise<void>): void {
    const run = () => void readBack();
    if (this.redis.status === 'ready') run();
    else this.redis.once('ready', run);
  }

  /** Ends the sessions of `ids` whose record is gone; one that cannot be read is kept. */
  private async endMissed(ids: string[], ended: (id: string) => void): Promise<void> {
    if (ids.length === 0) return;
    const kept = await this.recorded(ids).catch(() => ids.map(() => true));
    ids.forEach((id, i) => {
      if (!kept[i]) ended(id);
    });
  }

  /**
   * Whether each of `ids` has a record, in one pipeline. A cluster's keys lie on several nodes,
   * beyond one pipeline: there the commands are sent together, without waiting on each other.
   */
  private async recorded(ids: string[]): Promise<boolean[]> {
    const exists = (n: unknown) => n !== 0;
    if (this.redis.isCluster)
      return Promise.all(ids.map((id) => this.redis.exists(this.key(id)).then(exists, () => true)));
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.exists(this.key(id));
    const answers = (await pipeline.exec()) ?? [];
    return ids.map((_, i) => {
      const answer = answers[i];
      return !answer || answer[0] !== null || exists(answer[1]);
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
    await this.storeNotices(id, [elicitationId], 'last');
    await this.redis.del(awaitingKey(elicitationId)).catch(() => {});
    await this.announce(id, [elicitationId]);
  }

  /** Tells every replica of stored notices: the one holding the session's stream takes them. */
  private async announce(id: string, elicitationIds: string[]): Promise<void> {
    for (const elicitationId of elicitationIds)
      await this.channels.publish(COMPLETION_CHANNEL, JSON.stringify({ id, elicitationId })).catch(() => {});
  }

  /**
   * Calls `handler` for every completion notice published for a session, by any replica; after
   * a reconnection of the subscriber, also for those stored for the sessions `held` names, since
   * their messages never reached this replica and a stream open here is not opened again.
   */
  async onCompletion(
    handler: (id: string, elicitationId: string) => void,
    held: () => Iterable<string> = () => [],
  ): Promise<void> {
    this.channels.onResubscribed(() =>
      this.whenReady(async () => {
        for (const id of [...held()]) {
          const stored = await this.redis.lrange(noticesKey(id), 0, -1).catch(() => [] as string[]);
          for (const elicitationId of stored) handler(id, elicitationId);
        }
      }),
    );
    await this.channels.listen(COMPLETION_CHANNEL, (text) => {
      const { id, elicitationId } = JSON.parse(text) as { id: string; elicitationId: string };
      handler(id, elicitationId);
    });
  }

  /**
   * Told again, as when first stored: the client may have opened its stream on another replica
   * meanwhile, which looked for stored notices before these were back.
   */
  async putBackNotices(id: string, elicitationIds: string[]): Promise<void> {
    if (elicitationIds.length === 0) return;
    await this.storeNotices(id, elicitationIds, 'first');
    await this.announce(id, elicitationIds);
  }

  private async storeNotices(id: string, elicitationIds: string[], where: 'first' | 'last'): Promise<void> {
    // In one transaction: a connection lost between the two left a list that never expired,
    // for a session that may never come back to take it. First in line in their order (LPUSH
    // puts each before the last).
    const multi = this.redis.multi();
    if (where === 'first') multi.lpush(noticesKey(id), ...[...elicitationIds].reverse());
    else multi.rpush(noticesKey(id), ...elicitationIds);
    await execAll(multi.pexpire(noticesKey(id), this.idleMs));
  }

  async claimNotice(id: string, elicitationId: string): Promise<boolean> {
    const [notices, taken] = this.takeKeys(id);
    return (
      (await inRedis(() => this.redis.eval(CLAIM_NOTICE, 2, notices, taken, elicitationId, TAKEN_MS))) === 1
    );
  }

  /** The session's notices, each handed to one replica only (a session has a few at most). */
  async takeNotices(id: string): Promise<string[]> {
    const [notices, taken] = this.takeKeys(id);
    return (await inRedis(() =>
      this.redis.eval(TAKE_NOTICES, 2, notices, taken, MAX_NOTICES, TAKEN_MS),
    )) as string[];
  }

  /**
   * The notices' key, and the key of this take's record: in the notices' slot (a Redis Cluster
   * hashes a key's first `{…}`, else its whole name, the prefix ioredis puts before both
   * included), so that one script writes both.
   */
  private takeKeys(id: string): [string, string] {
    const prefix = this.redis.options.keyPrefix ?? '';
    return [noticesKey(id), `{${prefix}${noticesKey(id)}}:taken:${randomUUID()}`];
  }

  /**
   * Hands the client's answers (JSON-RPC responses, such as a person's confirmation) to every
   * replica holding the session: the one that asked is waiting for them, wherever they landed.
   * Kept a moment before they are published: a replica whose subscriber was reconnecting at
   * that moment (Redis just back) reads them once it hears the channel again, rather than
   * wait out its question while the client was told its answer was taken. A cancellation
   * Redis cannot take now is relayed once it answers again, within the same minute, within
   * its user's share.
   */
  async relayAnswers(id: string, userId: string, parsed: unknown): Promise<void> {
    const messages = [parsed].flat();
    const { relay, send } = relayOf(this.redis, this.channels, id, messages);
    try {
      await send();
    } catch (e) {
      // The replica running a cancelled call would never hear of it: the client sends it once,
      // and its call would run to its end (its answer dropped). Refused all the same, so that
      // the host hands it to this replica's own calls meanwhile. An answer is not kept: the
      // client was told to send it again, and a late one could meet a request numbered anew.
      if (messages.length > 0 && messages.every(isCancellation))
        this.deferred.add(Buffer.byteLength(relay), Date.now() + ANSWERS_KEPT_MS, send, userId);
      throw e;
    }
  }

  relayLater(id: string, userId: string, parsed: unknown): boolean {
    const messages = [parsed].flat();
    if (messages.length === 0 || !messages.every(isCancellation)) return false;
    let made: ReturnType<typeof relayOf>;
    try {
      made = relayOf(this.redis, this.channels, id, messages);
    } catch {
      return false; // too large to relay: more than a user's share, too
    }
    const { relay, send } = made;
    // Another user's cancellations must not stop this user's calls: relayed only once the record says whose it is.
    const owned = async () => {
      if ((await this.find(id))?.userId === userId) await send();
    };
    return this.deferred.add(Buffer.byteLength(relay), Date.now() + ANSWERS_KEPT_MS, owned, userId);
  }

  /**
   * The client's level, as a `logging/setLevel` request of its own: under an id of the store's, so
   * that the answer to it (given by each server it is handed to, awaited by no one) meets no
   * request of the client's. The record keeps its idle lifetime (KEEPTTL), and one ended
   * meanwhile is not brought back (XX).
   */
  async shareLogLevel(id: string, messages: unknown[]): Promise<void> {
    const level = messages.reduce<string | undefined>((last, m) => levelSetBy(m) ?? last, undefined);
    if (level === undefined) return;
    const setting = {
      jsonrpc: '2.0',
      id: `log-level:${randomUUID()}`,
      method: 'logging/setLevel',
      params: { level },
    };
    const record = await this.find(id);
    if (!record) return;
    const text = JSON.stringify({ ...record, settings: [setting] });
    await inRedis(() => this.redis.set(this.key(id), text, 'KEEPTTL', 'XX'));
    await relayOf(this.redis, this.channels, id, [setting]).send();
  }

  /**
   * Calls `handler` with the client answers relayed for a session, by any replica, each once;
   * after a reconnection of the subscriber, also those kept for the sessions `held` names.
   */
  async onAnswers(
    handler: (id: string, messages: unknown[]) => void,
    held: () => Iterable<string> = () => [],
  ): Promise<void> {
    const hand = (text: string) => {
      const { id, relay, messages } = JSON.parse(text) as { id: string; relay: string; messages: unknown[] };
      if (this.handed.has(relay)) return;
      this.handed.add(relay);
      if (this.handed.size > MAX_HANDED) this.handed.delete(this.handed.values().next().value!);
      handler(id, messages);
    };
    this.channels.onResubscribed(() => this.whenReady(() => this.handMissed(held(), hand)));
    await this.channels.listen(ANSWERS_CHANNEL, hand);
  }

  /** The answers kept for `ids`, handed on where this replica has not yet. */
  private async handMissed(ids: Iterable<string>, hand: (text: string) => void): Promise<void> {
    for (const id of [...ids]) {
      const kept = await this.redis.lrange(answersKey(id), 0, -1).catch(() => [] as string[]);
      for (const text of kept) hand(text);
    }
  }
}

/**
 * The level a message sets: a `logging/setLevel` request (with an id: as a notification, the
 * server ignores it) naming a level MCP defines (the server answers any other with an error). The
 * transport passed the message as well formed (members, id, params), else it was refused before.
 */
function levelSetBy(m: unknown): string | undefined {
  const { id, method, params } = (m ?? {}) as {
    id?: unknown;
    method?: unknown;
    params?: { level?: unknown };
  };
  const level = params?.level;
  if (method !== 'logging/setLevel' || id === undefined || typeof level !== 'string') return undefined;
  return LOG_LEVELS.has(level) ? level : undefined;
}
