import type { StateStore } from './state-store.js';

/** How long a spend not taken back is tried again in the background: past that, an outage. */
const BACKGROUND_MS = 10 * 60_000;

/** How many such spends a host keeps at once (the oldest let go): each a key and two values. */
const KEPT = 1_000;

interface Unanswered {
  /** What the spend wrote, found in the store while it is not taken back. */
  written: string;
  /** Puts back what the presentation read, where the store still holds `written` (compare-and-set). */
  takeBack: () => Promise<unknown>;
  /** When trying stops: the record would have expired by then, or the background's patience ends. */
  until: number;
}

/**
 * Spending writes of this host whose outcome it never learnt, their presentation answered with a
 * failure (no token handed out), and which the store did not answer to be taken back in the few
 * seconds a presentation waits. Such a write may have landed: a Redis failover or restart longer
 * than that wait, the write on the master and its acknowledgement lost. Found by the client's
 * retry, it would read as reuse and revoke the grant (or refuse the code), signing the person out
 * over a fault of the store.
 *
 * So they are tried again in the background until the store answers, and a presentation that
 * finds one this host remembers takes it back at once rather than revoking. Known to this host
 * only: a retry on another replica before the background take-back lands still reads as reuse.
 */
export class UnansweredSpends {
  private readonly byKey = new Map<string, Unanswered>();

  constructor(private readonly store: StateStore) {}

  /** How many this host is trying to take back. */
  get size(): number {
    return this.byKey.size;
  }

  /**
   * Remembers a spend the store did not answer about, and tries to take it back in the
   * background until `until` (ms since the epoch) at the latest.
   */
  remember(key: string, written: string, takeBack: () => Promise<unknown>, until: number): void {
    this.byKey.delete(key);
    this.byKey.set(key, { written, takeBack, until: Math.min(until, Date.now() + BACKGROUND_MS) });
    if (this.byKey.size > KEPT) this.byKey.delete(this.byKey.keys().next().value!);
    this.retryLater(key, 250);
  }

  /**
   * Where `found` (what the store holds under `key` now) is an unanswered spend of this host,
   * takes it back: true once the record is what its presentation read again. A failure of the
   * store here is the presentation's, as any other read or write of it.
   */
  async takeBack(key: string, found: string | undefined): Promise<boolean> {
    const entry = this.byKey.get(key);
    if (entry === undefined || found !== entry.written || Date.now() > entry.until) return false;
    await entry.takeBack();
    this.settled(key, entry);
    return true;
  }

  private retryLater(key: string, pause: number): void {
    const entry = this.byKey.get(key);
    if (entry === undefined) return;
    const timer = setTimeout(async () => {
      if (this.byKey.get(key) !== entry) return;
      try {
        if ((await this.store.get(key)) === entry.written) await entry.takeBack();
        this.settled(key, entry);
      } catch {
        if (Date.now() + pause >= entry.until) this.settled(key, entry);
        else this.retryLater(key, Math.min(pause * 2, 5_000));
      }
    }, pause);
    // The background never keeps a process alive that has nothing else to do.
    timer.unref();
  }

  private settled(key: string, entry: Unanswered): void {
    if (this.byKey.get(key) === entry) this.byKey.delete(key);
  }
}
