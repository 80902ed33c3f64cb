import { randomBytes } from 'node:crypto';
import type { CallSignal } from '@toolhost/core';
import type { PacerFactory, RequestPacer } from '@toolhost/engine';
import { Pacer, sleep } from '@toolhost/engine/internal';
import type { StoreLogger } from './ports.js';
import type { SharedRedis } from './redis-client.js';

// Requests are spaced 10 % more than 1/rate: timers, event loops and the network bunch
// requests by tens of milliseconds on a busy host, and the vendor counts them at its end.
// Exceeding the rate costs far more than 10 %: Airtable answers 429 and asks for a 30 s wait.
const HEADROOM = 1.1;
/**
 * How long a departure counts while its host has not said it left (a host that dies between
 * taking its place and saying so holds the place this long).
 */
const UNCONFIRMED_MS = 10_000;

/**
 * A request's next step, in Redis's clock (so replicas' clocks need not agree). First its turn:
 * the later of now and the previous turn plus the spacing (a request to an idle key has it at
 * once). At its turn, its departure: at most `rate` departures of the key may overlap any
 * window of `window` ms (1.1 s), each departure counted from the moment its place was given
 * until its host says the request left (CONFIRM), or UNCONFIRMED_MS. Answers the ms to wait and
 * what for ('turn': sleep, then ask again holding the turn; 'full': the window is full), or
 * 'go' (the place is taken: send, then confirm).
 *
 * The turns alone spaced the grants, not the departures: a request whose grant reached its host
 * late (a busy event loop, a slow link) left late, beside the next one granted on time, and six
 * could land in one second. A departure is now counted over the whole time its request may be
 * leaving, so any `rate + 1` requests span more than the window whenever each one left.
 */
const STEP = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local spacing = tonumber(ARGV[1])
if ARGV[2] == '0' then
  local last = tonumber(redis.call('GET', KEYS[1]) or '0')
  local at = math.max(now, last + spacing)
  redis.call('SET', KEYS[1], tostring(at), 'PX', math.ceil(at - now + spacing) + 1000)
  if at > now then return {tostring(at - now), 'turn'} end
end
local window = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {tostring(math.max(1, tonumber(first[2]) - now)), 'full'}
end
local hold = tonumber(ARGV[5])
redis.call('ZADD', KEYS[2], now + hold + window, ARGV[6])
redis.call('PEXPIRE', KEYS[2], math.ceil(hold + window) + 1000)
return {'0', 'go'}`;

/** The request left: its departure counts until one window from now. */
const CONFIRM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
return redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])`;

type PacingClient = SharedRedis & {
  toolhostPaceStep(
    turnKey: string,
    logKey: string,
    spacingMs: number,
    holdsTurn: '0' | '1',
    rate: number,
    windowMs: number,
    unconfirmedMs: number,
    id: string,
  ): Promise<[string, 'turn' | 'full' | 'go']>;
  toolhostPaceLeft(logKey: string, windowMs: number, id: string): Promise<number>;
};

function pacingClient(redis: SharedRedis): PacingClient {
  const client = redis as PacingClient;
  // Defined once per connection; ioredis sends them by their hash (EVALSHA) after the first use.
  if (typeof client.toolhostPaceStep !== 'function') {
    redis.defineCommand('toolhostPaceStep', { numberOfKeys: 2, lua: STEP });
    redis.defineCommand('toolhostPaceLeft', { numberOfKeys: 1, lua: CONFIRM });
  }
  return client;
}

/**
 * One pacer shared by every replica (a tool set's, or the per-connection one of the tool sets
 * paced per connection; `name` says which): each request takes the next turn of its pacing key
 * in Redis, 1.1/rate seconds after the previous one of any replica, then at its turn a place
 * among the key's departures (see STEP), and says when it has left. A request to an idle key
 * goes after one round trip. However late a request leaves after its grant (a busy host, a
 * slow link to Redis), no window of 1.1 s holds more than `rate` departures: the vendor, who
 * counts arrivals, has 100 ms for the network's jitter before it could count `rate + 1` in a
 * second.
 *
 * Redis unreachable: the request is paced by this process alone, with one warning per outage.
 */
export class SharedPacer implements RequestPacer {
  private readonly redis: PacingClient;
  private readonly spacingMs: number;
  private readonly windowMs = 1000 * HEADROOM;
  private local?: Pacer;
  /** Pacing per process (Redis unreachable): replicas together may exceed the rate. */
  degraded = false;

  constructor(
    redis: SharedRedis,
    private readonly name: string,
    private readonly requestsPerSecond: number,
    private readonly logger?: StoreLogger,
  ) {
    this.redis = pacingClient(redis);
    this.spacingMs = (1000 / requestsPerSecond) * HEADROOM;
  }

  /** Resolves when the request may go, with how long it was held back (ms). */
  async wait(key: string, signal?: CallSignal, departed?: Promise<void>): Promise<number> {
    // One hash slot for both keys of a bucket: a Redis Cluster runs the script on one node.
    const bucket = `toolhost:pace:{${encodeURIComponent(this.name)}:${key}}`;
    const id = randomBytes(8).toString('hex');
    let holdsTurn = false;
    let waited = 0;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      let step: [string, 'turn' | 'full' | 'go'];
      try {
        step = await this.redis.toolhostPaceStep(
          bucket,
          `${bucket}:left`,
          this.spacingMs,
          holdsTurn ? '1' : '0',
          this.requestsPerSecond,
          this.windowMs,
          UNCONFIRMED_MS,
          id,
        );
        this.reachable();
      } catch (e) {
        return waited + (await this.waitLocally(key, e, signal, departed));
      }
      const [ms, what] = step;
      if (what === 'go') {
        // Once the request has left (the engine says when: a free slot and an open connection
        // can come first), or else after the caller's send has begun (its continuation runs
        // first): the departure counts from its place until then, which is after it left.
        const left = () => {
          this.redis.toolhostPaceLeft(`${bucket}:left`, this.windowMs, id).catch(() => {});
        };
        if (departed) void departed.then(left);
        else setImmediate(left);
        return waited;
      }
      if (what === 'turn') holdsTurn = true;
      const delay = Number(ms);
      await sleep(delay, signal);
      waited += delay;
    }
  }

  private reachable(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger?.info({ pacer: this.name }, 'pacing shared through Redis again');
  }

  private waitLocally(
    key: string,
    error: unknown,
    signal?: CallSignal,
    departed?: Promise<void>,
  ): Promise<number> {
    if (!this.degraded) {
      this.degraded = true;
      this.logger?.warn(
        {
          pacer: this.name,
          err: error instanceof Error ? error.message : String(error),
        },
        'Redis unreachable: pacing per process until it returns (replicas together may exceed the rate)',
      );
    }
    this.local ??= new Pacer(this.requestsPerSecond);
    return this.local.wait(key, signal, departed);
  }
}

/** The engine's pacer factory for a host with a shared store, and the pacers it made (for gauges). */
export function sharedPacers(
  redis: SharedRedis,
  logger?: StoreLogger,
): { factory: PacerFactory; made: ReadonlyMap<string, SharedPacer> } {
  const made = new Map<string, SharedPacer>();
  const factory: PacerFactory = (name, requestsPerSecond) => {
    const pacer = new SharedPacer(redis, name, requestsPerSecond, logger);
    made.set(name, pacer);
    return pacer;
  };
  return { factory, made };
}
