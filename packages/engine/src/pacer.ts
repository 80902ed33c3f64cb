import type { CallSignal } from '@toolhost/core';

/** Spaces the requests that share a key; the engine waits on it before each upstream request. */
export interface RequestPacer {
  /**
   * Resolves when a request for `key` may go (rejects with the signal's reason on abort), with
   * the milliseconds it held the request back (0 for none; for metrics).
   *
   * `departed` (given by the engine) settles once the request has left: written to its
   * connection, or given up before that. A request can leave well after its turn: it may wait
   * for a free connection slot, or for its connection to open. A pacer that counts a departure
   * until a window after it left (the shared one) counts from then rather than from its turn.
   */
  wait(key: string, signal?: CallSignal, departed?: Promise<void>): Promise<number>;
}

/**
 * Makes a pacer at a pacing policy's rate: the host passes one backed by a shared store so
 * that replicas pace together. `name` is the tool set's for pacing per parameter value, and
 * `connection@<rate>` for pacing per connection (shared by the tool sets paced that way).
 */
export type PacerFactory = (name: string, requestsPerSecond: number) => RequestPacer;

// Requests are spaced 10 % more than 1/rate, and a request whose timer fired more than a tenth
// of that late takes a fresh turn: a late start shortens only the gap after it, so any `rate`
// consecutive gaps still span more than a second, and the vendor never counts more than its
// rate in one second however busy the event loop is.
const HEADROOM = 1.1;
const LATE_SHARE = 0.1;

/**
 * Spaces requests that share a key (e.g. one Airtable base) to at most `perSecond` per
 * second, so that an agent's burst queues briefly instead of failing with 429. A request to
 * an idle key goes at once.
 *
 * Beside the turns, each key keeps its recent departures, each counted from its turn until a
 * window (1.1 s) after it left (`departed`; from its turn where nobody says): a request that
 * left late, after a wait for a free connection slot, still keeps the next ones a window away.
 */
export class Pacer implements RequestPacer {
  private readonly next = new Map<string, number>();
  private readonly departures = new Map<string, { until: number }[]>();

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when a request for `key` may go, with how long it waited; reserves its turn at once. */
  async wait(key: string, signal?: CallSignal, departed?: Promise<void>): Promise<number> {
    const interval = (1000 / this.perSecond) * HEADROOM;
    let waited = 0;
    for (;;) {
      const now = this.now();
      const turn = Math.max(now, this.next.get(key) ?? 0);
      this.next.set(key, turn + interval);
      // Forget idle keys so the maps do not grow with every base ever used.
      if (this.next.size > 1000) this.forgetIdle(now);
      const delay = turn - now;
      if (delay <= 0) break;
      await sleep(delay, signal);
      waited += delay;
      if (this.now() - turn <= interval * LATE_SHARE) break;
    }
    // At its turn, a place among the key's departures: at most `perSecond` within a window.
    for (;;) {
      const now = this.now();
      const log = (this.departures.get(key) ?? []).filter((d) => d.until > now);
      if (log.length < this.perSecond) {
        const place = { until: departed ? Number.POSITIVE_INFINITY : now + 1000 * HEADROOM };
        log.push(place);
        this.departures.set(key, log);
        void departed?.then(() => {
          place.until = this.now() + 1000 * HEADROOM;
        });
        return waited;
      }
      // Full: until the first place frees (one still leaving is looked at again after a turn's time).
      const free = Math.min(...log.map((d) => d.until));
      const delay = Number.isFinite(free) ? Math.max(1, free - now) : interval;
      await sleep(delay, signal);
      waited += delay;
    }
  }

  private forgetIdle(now: number): void {
    for (const [k, t] of this.next) if (t < now) this.next.delete(k);
    for (const [k, log] of this.departures) if (log.every((d) => d.until <= now)) this.departures.delete(k);
  }
}

export function sleep(ms: number, signal?: CallSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
