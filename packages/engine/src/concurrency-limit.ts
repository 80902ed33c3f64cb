import { type CallSignal, ToolError } from '@toolhost/core';

/** A task waiting for a slot. */
interface Waiter {
  go: () => void;
  fail: (error: unknown) => void;
  /** When it stops waiting (ms since the epoch); Infinity without `maxWaitMs`. */
  deadline: number;
  maxWaitMs: number | undefined;
  signal: CallSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * At most `limit` tasks run at once; the rest wait in order, until their signal aborts or,
 * given `maxWaitMs`, until that long has passed (a `timeout` error: a queue that never moves
 * must not hold a call for ever).
 *
 * Under load many calls wait (where the tools reach several upstreams, the host's
 * per-upstream limit is half its global one, so a client sending 64 calls to one vendor keeps
 * 32 waiting): a wait holds a promise, an abort listener and a place in the queue, and one
 * timer serves the whole queue (armed for the earliest deadline) rather than a timer set and
 * cleared per waiting call.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The deadline the timer is armed for. */
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: CallSignal, maxWaitMs?: number): Promise<T> {
    if (this.active >= this.limit) await this.wait(signal, maxWaitMs);
    else this.active += 1;
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  get pending(): number {
    return this.waiting.length;
  }

  /** Resolves once a slot is this task's (the one freed is handed over: `active` stays as it is). */
  private wait(signal: CallSignal | undefined, maxWaitMs: number | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        go: resolve,
        fail: reject,
        deadline: maxWaitMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + maxWaitMs,
        maxWaitMs,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        waiter.onAbort = () => {
          this.leave(waiter);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiting.push(waiter);
      if (waiter.deadline < this.armedFor) this.arm(waiter.deadline);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.active -= 1;
      return;
    }
    this.forget(next);
    next.go();
  }

  private leave(waiter: Waiter): void {
    const i = this.waiting.indexOf(waiter);
    if (i >= 0) this.waiting.splice(i, 1);
    this.forget(waiter);
  }

  /** A waiter out of the queue: its abort no longer listened to, and with nobody left waiting, no timer. */
  private forget(waiter: Waiter): void {
    waiter.signal?.removeEventListener('abort', waiter.onAbort as () => void);
    // The timer would otherwise hold the process up to its deadline with nobody waiting.
    if (this.waiting.length === 0 && this.timer) this.disarm();
  }

  private arm(deadline: number): void {
    clearTimeout(this.timer);
    this.armedFor = deadline;
    this.timer = setTimeout(this.expire, Math.max(0, deadline - Date.now()));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
  }

  /** Fails every waiter whose deadline has passed, then arms for the earliest one left. */
  private readonly expire = () => {
    this.disarm();
    const now = Date.now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const waiter of [...this.waiting]) {
      if (waiter.deadline <= now) {
        this.leave(waiter);
        waiter.fail(
          new ToolError({
            code: 'timeout',
            retryable: true,
            message: `No upstream request slot became free within ${waiter.maxWaitMs} ms (${this.limit} requests in flight).`,
          }),
        );
      } else if (waiter.deadline < earliest) earliest = waiter.deadline;
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.arm(earliest);
  };
}
