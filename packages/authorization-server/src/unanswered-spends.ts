import { undo } from './spending-writes.js';
import type { StateStore } from './state-store.js';

/** How long a spend not taken back is tried again in the background: past that, an outage. */
const BACKGROUND_MS = 10 * 60_000;

/** How often the background tries while the store does not answer: a client retries after a second. */
const PAUSE_MS = 1_000;

/** How many such spends a host keeps at once (the oldest let go): each a key and two values. */
const KEPT = 1_000;

/** A spend this host could not take back, as `UnansweredSpends.remember` is told of it. */
export interface UnansweredSpend {
  /** What the spend wrote, found in the store while it is not taken back. */
  written: string;
  /** The hash of the code or refresh token presented: only its presentation takes it back early. */
  presented: string;
  /** Puts back what the presentation read, where the store still holds `written` (compare-and-set). */
  takeBack: () => Promise<unknown>;
  /** Undoes what else the presentation wrote before its spend (best effort), once taken back. */
  thenUndo?: () => Promise<unknown>;
  /** When the record taken back would have expired (ms since the epoch): no use trying after. */
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
 * So they are tried again in the background, each second while the store does not answer (one
 * read a second however many wait: the first that fails ends the round), and a presentation of
 * the same code or refresh token that finds one this host remembers takes it back at once rather
 * than revoking. Known to this host only, and only while it runs: a retry on another replica in
 * the second before this host's next try still reads as reuse, as does any after it restarted.
 */
export class UnansweredSpends {
  private readonly byKey = new Map<string, UnansweredSpend>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly store: StateStore) {}

  /** Remembers a spend the store did not answer about, tried again in the background. */
  remember(key: string, spend: UnansweredSpend): void {
    this.byKey.delete(key);
    this.byKey.set(key, { ...spend, until: Math.min(spend.until, Date.now() + BACKGROUND_MS) });
    if (this.byKey.size > KEPT) this.byKey.delete(this.byKey.keys().next().value!);
    this.schedule();
  }

  /**
   * Where `found` (what the store holds under `key` now) is this host's unanswered spend of the
   * code or refresh token presented (its hash), takes it back: true once the record is what that
   * presentation read again. A failure of the store here is the presentation's, as any other.
   */
  async takeBack(key: string, found: string | undefined, presented: string): Promise<boolean> {
    const entry = this.byKey.get(key);
    if (entry === undefined || entry.presented !== presented || found !== entry.written) return false;
    if (Date.now() > entry.until) return false;
    await entry.takeBack();
    await this.settle(key, entry);
    return true;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.byKey.size === 0) return;
    this.timer = setTimeout(() => void this.round(), PAUSE_MS);
    // The background never keeps a process alive that has nothing else to do.
    this.timer.unref();
  }

  /** Tries each remembered spend, oldest first, until the store fails one (it is still away). */
  private async round(): Promise<void> {
    for (const [key, entry] of [...this.byKey]) {
      if (this.byKey.get(key) !== entry) continue;
      if (Date.now() > entry.until) {
        this.byKey.delete(key);
        continue;
      }
      // Still away: the next round tries again.
      if (!(await undo(this.store, key, entry.written, entry.takeBack))) break;
      await this.settle(key, entry);
    }
    this.timer = undefined;
    this.schedule();
  }

  private async settle(key: string, entry: UnansweredSpend): Promise<void> {
    if (this.byKey.get(key) === entry) this.byKey.delete(key);
    await entry.thenUndo?.().catch(() => {});
  }
}
