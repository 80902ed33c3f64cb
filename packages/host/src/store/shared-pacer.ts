import type { CallSignal } from '@toolhost/core';
import type { PacerFactory, RequestPacer } from '@toolhost/engine';
import { Pacer, sleep } from '@toolhost/engine/internal';
import type { Logger } from '../logger.js';
import type { SharedRedis } from './redis-client.js';

// Requests are spaced 10 % more than 1/rate: timers, event loops and the network bunch
// requests by tens of milliseconds on a busy host, and the vendor counts them at its end.
// Exceeding the rate costs far more than 10 %: Airtable answers 429 and asks for a 30 s wait.
const HEADROOM = 1.1;
/** How late (as a share of the spacing) a request may start before it takes a new turn. */
const LATE_SHARE = 0.1;

/**
 * The next turn of a key, in Redis's clock (so replicas' clocks need not agree): the later of
 * now and the previous turn plus the spacing; answers how long to wait for it, in ms (0 when
 * the key was idle). A script of our own rather than a rate-limiter-flexible limiter: those
 * count points per window (a request then waits for a window's boundary, or a window's
 * points go at once), where pacing needs each request one spacing after the previous one.
 */
const NEXT_TURN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local spacing = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(now, last + spacing)
redis.call('SET', KEYS[1], tostring(at), 'PX', math.ceil(at - now + spacing) + 1000)
return tostring(at - now)`;

type PacingClient = SharedRedis & { toolhostNextTurn(key: string, spacingMs: number): Promise<string> };

function pacingClient(redis: SharedRedis): PacingClient {
  const client = redis as PacingClient;
  // Defined once per connection; ioredis sends it by its hash (EVALSHA) after the first use.
  if (typeof client.toolhostNextTurn !== 'function')
    redis.defineCommand('toolhostNextTurn', { numberOfKeys: 1, lua: NEXT_TURN });
  return client;
}

/**
 * One pacer shared by every replica (a tool set's, or the per-connection one of the tool sets
 * paced per connection; `name` says which): each request takes the next turn of its pacing
 * key in Redis (one round trip) and goes at that turn, 1.1/rate seconds after the previous
 * one of any replica. A request to an idle key goes at once. Since a late start shortens only
 * the gap after it, any `rate` consecutive gaps still span more than a second: no window of
 * one second sees more than `rate` requests.
 *
 * Redis unreachable: the request is paced by this process alone, with one warning per outage.
 */
export class SharedPacer implements RequestPacer {
  private readonly redis: PacingClient;
  private readonly spacingMs: number;
  private readonly lateMs: number;
  private local?: Pacer;
  /** Pacing per process (Redis unreachable): replicas together may exceed the rate. */
  degraded = false;

  constructor(
    redis: SharedRedis,
    private readonly name: string,
    private readonly requestsPerSecond: number,
    private readonly logger?: Logger,
  ) {
    this.redis = pacingClient(redis);
    this.spacingMs = (1000 / requestsPerSecond) * HEADROOM;
    this.lateMs = this.spacingMs * LATE_SHARE;
  }

  /** Resolves when the request may go, with how long it was held back (ms). */
  async wait(key: string, signal?: CallSignal): Promise<number> {
    let waited = 0;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      let delay: number;
      try {
        delay = await this.nextTurn(key);
      } catch (e) {
        return waited + (await this.waitLocally(key, e, signal));
      }
      if (delay <= 0) return waited;
      const due = Date.now() + delay;
      await sleep(delay, signal);
      waited += delay;
      // A timer that fired late (a busy event loop) would bunch this request with the next
      // turn's: it takes a fresh turn instead.
      if (Date.now() - due <= this.lateMs) return waited;
    }
  }

  private async nextTurn(key: string): Promise<number> {
    const delay = Number(
      await this.redis.toolhostNextTurn(
        `toolhost:pace:${encodeURIComponent(this.name)}:${key}`,
        this.spacingMs,
      ),
    );
    if (this.degraded) {
      this.degraded = false;
      this.logger?.info({ pacer: this.name }, 'pacing shared through Redis again');
    }
    return delay;
  }

  private waitLocally(key: string, error: unknown, signal?: CallSignal): Promise<number> {
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
    return this.local.wait(key, signal);
  }
}

/** The engine's pacer factory for a host with a shared store, and the pacers it made (for gauges). */
export function sharedPacers(
  redis: SharedRedis,
  logger?: Logger,
): { factory: PacerFactory; made: ReadonlyMap<string, SharedPacer> } {
  const made = new Map<string, SharedPacer>();
  const factory: PacerFactory = (name, requestsPerSecond) => {
    const pacer = new SharedPacer(redis, name, requestsPerSecond, logger);
    made.set(name, pacer);
    return pacer;
  };
  return { factory, made };
}
