import { randomBytes } from 'node:crypto';
import type {
  NewAuthorization,
  PendingAuthorization,
  PendingAuthorizationStore,
  PendingBounds,
} from './ports.js';
import { execAll, inRedis, type SharedRedis } from './redis-client.js';
import { awaitingKey } from './redis-sessions.js';
import type { SaltedSealed, SharedCipher } from './shared-cipher.js';

// Drops the user's expired flows, adds the new one, and pops their oldest beyond the bound,
// answering the popped flow ids (whose keys the caller removes).
const MAKE_ROOM = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over <= 0 then return {} end
local popped = redis.call('ZPOPMIN', KEYS[1], over)
local ids = {}
for i = 1, #popped, 2 do ids[#ids + 1] = popped[i] end
return ids
`;

// Takes a state once: answers the flow it names and leaves in its place the mark of this take
// (ARGV[1]), until the flow's keys are dropped or ARGV[2] ms pass. A take whose answer was lost
// (the connection cut after Redis ran it) is sent again by the Redis client on reconnecting, and
// must find the flow it took, not nothing: the sign-in would fail, its code spent.
const TAKE = `
local held = redis.call('GET', KEYS[1])
if not held then return false end
local mine = 'taken ' .. ARGV[1] .. ' '
if string.sub(held, 1, #mine) == mine then return string.sub(held, #mine + 1) end
if string.sub(held, 1, 6) == 'taken ' then return false end
redis.call('SET', KEYS[1], mine .. held, 'PX', ARGV[2])
return held
`;
const TAKEN = 'taken ';
/** How long a taken state's mark outlives a take that could not drop the flow. */
const TAKEN_MS = 60_000;

/** What is sealed under a flow's key: everything of the flow but whether it was opened. */
interface StoredFlow extends Omit<PendingAuthorization, 'opened'> {
  state: string;
}

/**
 * Pending authorizations of one provider in Redis, shared by replicas: the link one replica
 * hands out may be opened, and its callback land, on any other. Per flow: its entry (sealed
 * with the token cipher, as the PKCE code verifier must not sit in Redis in clear), the state
 * naming it, and whether a browser opened it, all expiring with the flow (PX). Each user's
 * flows sit in a sorted set by expiry, so that the per-user cap holds across replicas (their
 * oldest flow makes room for their newest). A state is taken once, in one script (TAKE), so two
 * callbacks racing on two replicas cannot both get the code verifier.
 */
export class RedisPendingAuthorizations implements PendingAuthorizationStore {
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly maxPerUser: number;

  constructor(
    private readonly redis: SharedRedis,
    private readonly cipher: SharedCipher,
    providerId: string,
    bounds: PendingBounds,
  ) {
    this.ttlMs = bounds.ttlMs;
    this.maxPerUser = bounds.maxPerUser;
    // One hash tag per provider (`{…}`): a flow's keys are written in one MULTI and removed in
    // one DEL, and the state, flow and user keys share only the provider, so a Redis Cluster
    // keeps each provider's pending flows in one slot (few and short-lived: no hot spot).
    this.prefix = `toolhost:oauth:{${encodeURIComponent(providerId)}}`;
  }

  private flowKey = (flowId: string) => `${this.prefix}:flow:${flowId}`;
  private stateKey = (state: string) => `${this.prefix}:state:${state}`;
  private openedKey = (flowId: string) => `${this.prefix}:opened:${flowId}`;
  private userKey = (userId: string) => `${this.prefix}:user:${encodeURIComponent(userId)}`;

  async add(state: string, entry: NewAuthorization): Promise<void> {
    const now = Date.now();
    const stored: StoredFlow = { ...entry, state, expiresAt: now + this.ttlMs };
    const users = this.userKey(entry.userId);
    await this.cipher.agree();
    await inRedis(async () => {
      // The flow's place is taken, and the user's oldest beyond the bound given up, in one
      // script: two replicas adding a user's flows at once cannot leave more than the bound.
      const evicted = (await this.redis.eval(
        MAKE_ROOM,
        1,
        users,
        now,
        stored.expiresAt,
        entry.flowId,
        this.maxPerUser,
        this.ttlMs,
      )) as string[];
      // A flow given up is waited for no more: the session's record of it (one each call of a
      // user without a token) would otherwise outlive it, for the flow's whole life. Best effort,
      // as completed() is: the new flow is placed already, and must not fail for the old one's.
      for (const flowId of evicted)
        await this.drop(flowId).then(() => this.redis.del(awaitingKey(flowId)).catch(() => {}));
      await execAll(
        this.redis
          .multi()
          .set(
            this.flowKey(entry.flowId),
            JSON.stringify(this.cipher.seal(stored, this.flowKey(entry.flowId))),
            'PX',
            this.ttlMs,
          )
          .set(this.stateKey(state), entry.flowId, 'PX', this.ttlMs),
      );
      // Another replica may have given this flow's place up before its keys were written,
      // finding nothing to remove: they are removed here instead.
      if ((await this.redis.zscore(users, entry.flowId)) === null) await this.drop(entry.flowId);
    });
  }

  async get(state: string): Promise<PendingAuthorization | undefined> {
    const flowId = await inRedis(() => this.redis.get(this.stateKey(state)));
    return flowId === null || flowId.startsWith(TAKEN) ? undefined : (await this.byFlow(flowId))?.entry;
  }

  async byFlow(flowId: string): Promise<{ state: string; entry: PendingAuthorization } | undefined> {
    await this.cipher.agree();
    const [sealed, opened] = await inRedis(() =>
      this.redis.mget(this.flowKey(flowId), this.openedKey(flowId)),
    );
    const flow = this.open(flowId, sealed ?? null);
    if (!flow || flow.expiresAt <= Date.now()) return undefined;
    const { state, ...entry } = flow;
    return { state, entry: { ...entry, opened: opened !== null } };
  }

  async markOpened(flowId: string): Promise<void> {
    await inRedis(() => this.redis.set(this.openedKey(flowId), '1', 'PX', this.ttlMs));
  }

  async take(state: string): Promise<PendingAuthorization | undefined> {
    const take = randomBytes(8).toString('hex');
    const flowId = await inRedis(() => this.redis.eval(TAKE, 1, this.stateKey(state), take, TAKEN_MS));
    if (typeof flowId !== 'string') return undefined;
    const found = await this.byFlow(flowId);
    await inRedis(() => this.drop(flowId, found?.entry.userId));
    return found?.entry;
  }

  /**
   * Removes a flow's keys (its state key with it, when the flow can still be read). A flow
   * whose entry is not there is left alone: it has expired, or its replica is about to write it
   * (another replica gave its place up first), and that replica removes it once written, state
   * key included. Deleting it here could land just after that write and leave the state key,
   * which only the entry names, behind.
   */
  private async drop(flowId: string, userId?: string): Promise<void> {
    const text = await this.redis.get(this.flowKey(flowId));
    const flow = this.open(flowId, text);
    if (text !== null) {
      const keys = [this.flowKey(flowId), this.openedKey(flowId)];
      if (flow) keys.push(this.stateKey(flow.state));
      await this.redis.del(...keys);
    }
    const owner = userId ?? flow?.userId;
    if (owner !== undefined) await this.redis.zrem(this.userKey(owner), flowId);
  }

  /** The flow a sealed value holds; undefined when absent or not readable with this key. */
  private open(flowId: string, text: string | null): StoredFlow | undefined {
    if (text === null) return undefined;
    try {
      return this.cipher.open(JSON.parse(text) as SaltedSealed, this.flowKey(flowId)) as StoredFlow;
    } catch {
      // Sealed with another TOOLHOST_TOKEN_KEY (a misconfigured replica): not a flow we can finish.
      return undefined;
    }
  }
}
