import type { CallSignal } from '@toolhost/core';
import type { PacerFactory, RequestPacer } from '@toolhost/engine';
import { Pacer, sleep } from '@toolhost/engine/internal';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';

// Slots are 10 % longer than 1/rate: timers, event loops and the network bunch requests by
// tens of milliseconds on a busy host, and the vendor counts them at its end. Exceeding the
// rate costs far more than 10 %: Airtable answers 429 and asks for a 30 s wait.
const HEADROOM = 1.1;
/** How late (as a share of a slot) a request may start in its slot before it takes another. */
const LATE_SHARE = 0.1;

/**
 * One pacer shared by every replica (a tool set's, or the per-connection one of the tool sets
 * paced per connection; `name` says which): time is cut into slots of 1.1/rate seconds, a
 * request reserves one slot of its pacing key in Redis (a one-point rate-limiter-flexible
 * counter per slot, so exactly one replica wins each), then starts at that slot's beginning.
 * Requests of a key are thus at least one slot apart across all replicas, in any window, not
 * only within fixed one-second windows. Replicas' clocks must agree (NTP) for slots to line up.
 *
 * Redis unreachable: the request is paced by this process alone, with one warning per outage.
 */
export class SharedPacer implements RequestPacer {
  private readonly limiter: RateLimiterRedis;
  private readonly slotMs: number;
  private readonly lateMs: number;
  /** The next slot worth trying per key: slots before it are taken already. */
  private readonly nextSlot = new Map<string, number>();
  private local?: Pacer;
  private degraded = false;

  constructor(
    redis: Redis,
    private readonly name: string,
    private readonly requestsPerSecond: number,
    private readonly logger?: Logger,
  ) {
    this.slotMs = (1000 / requestsPerSecond) * HEADROOM;
    this.lateMs = this.slotMs * LATE_SHARE;
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `toolhost:pace:${encodeURIComponent(name)}`,
      points: 1,
      duration: 1,
      rejectIfRedisNotReady: true,
    });
  }

  /** Resolves when the request may go, with how long it was held back (ms). */
  async wait(key: string, signal?: CallSignal): Promise<number> {
    let waited = 0;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      let slot: number;
      try {
        slot = await this.reserve(key);
      } catch (e) {
        return waited + (await this.waitLocally(key, e, signal));
      }
      const start = slot * this.slotMs;
      const delay = start - Date.now();
      if (delay > 0) {
        await sleep(delay, signal);
        waited += delay;
      }
      // A timer that fired late (a busy event loop) would send this request into the time of
      // the next slots, bunched with theirs: it takes a fresh slot instead.
      if (Date.now() - start <= this.lateMs) return waited;
    }
  }

  /** Takes the first free slot of `key` that starts now or later (one Redis round trip per slot tried). */
  private async reserve(key: string): Promise<number> {
    let slot = Math.max(Math.ceil(Date.now() / this.slotMs), this.nextSlot.get(key) ?? 0);
    for (;;) {
      const ahead = slot * this.slotMs - Date.now();
      try {
        // The slot's counter lives until the slot is past, so no replica can take it again.
        await this.limiter.consume(`${key}:${slot}`, 1, { customDuration: Math.ceil(ahead / 1000) + 2 });
        break;
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        slot += 1;
      }
    }
    if (this.degraded) {
      this.degraded = false;
      this.logger?.info({ pacer: this.name }, 'pacing shared through Redis again');
    }
    this.nextSlot.set(key, slot + 1);
    if (this.nextSlot.size > 1000) {
      const now = Date.now() / this.slotMs;
      for (const [k, s] of this.nextSlot) if (s < now) this.nextSlot.delete(k);
    }
    return slot;
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

/** The engine's pacer factory for a host with a shared store. */
export function sharedPacers(redis: Redis, logger?: Logger): PacerFactory {
  return (name, requestsPerSecond) => new SharedPacer(redis, name, requestsPerSecond, logger);
}
