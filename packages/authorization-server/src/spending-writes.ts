import { setTimeout as sleep } from 'node:timers/promises';
import type { StateStore } from './state-store.js';
import type { UnansweredSpend, UnansweredSpends } from './unanswered-spends.js';

export const DURABLY = { durable: true } as const;

/**
 * How many times a presentation spends its code or refresh token, found unspent again after its
 * compare-and-set lost (another's write taken back): a few such failures in a row, and it gives up.
 */
export const SPEND_TRIES = 3;

/** How long a spending write whose outcome is unknown is tried to be taken back, the store away. */
const TAKE_BACK_MS = 3_000;

/** When a record written now for `seconds` expires. */
export const expiryIn = (seconds: number) => Date.now() + seconds * 1000;

/**
 * What is left of a record's lifetime, for a take-back: it gets back what it had, not a fresh
 * one (`whole` where its record does not say, written by a version before).
 */
export const secondsLeft = (expiresAt: number | undefined, whole: number) =>
  expiresAt === undefined ? whole : Math.max(1, (expiresAt - Date.now()) / 1000);

/** Where a spend the store never answered about is remembered, and for which presentation. */
export interface Unanswered extends Pick<UnansweredSpend, 'presented' | 'thenUndo'> {
  into: UnansweredSpends;
}

/**
 * The write that spends a code or refresh token: `spent` in place of the record as presented,
 * in one step and durably; false where the record changed meanwhile. One short of its
 * replicas may stand on the master: it is put back (best effort) and the failure goes on.
 */
export async function spend(
  store: StateStore,
  key: string,
  presented: string,
  spent: string,
  seconds: { spent: number; back: number },
  unanswered?: Unanswered,
): Promise<boolean> {
  // When the record read would have expired: a write that hung before failing gives it no more.
  const until = Date.now() + seconds.back * 1000;
  try {
    return await store.compareAndSet(key, presented, spent, seconds.spent, DURABLY);
  } catch (e) {
    // Written or not, nobody knows (the answer lost, the store away since): the write is
    // taken back, tried again a moment, else the client's retry would find it and revoke;
    // still unanswered then, in the background (the presentation's failure goes out now).
    // Durably: a take-back a failover loses brings the spend back, for the retry to find.
    const back = () =>
      store.compareAndSet(key, spent, presented, Math.max(1, (until - Date.now()) / 1000), DURABLY);
    if (!(await undo(store, key, spent, back, TAKE_BACK_MS)) && unanswered) {
      const { into, ...rest } = unanswered;
      into.remember(key, { written: spent, takeBack: back, until, ...rest });
    }
    throw e;
  }
}

/**
 * Takes back a write of a presentation that failed, where the store holds it (best effort,
 * tried again for `patienceMs` while the store does not answer): one short of replicas stands
 * on the master; one the store did not make (its file unwritten, its lock held) needs
 * nothing, and its taking back would wait on that lock again. False where the store never
 * answered, or never took the take-back.
 */
export async function undo(
  store: StateStore,
  key: string,
  written: string,
  takeBack: () => Promise<unknown>,
  patienceMs = 0,
): Promise<boolean> {
  const until = Date.now() + patienceMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 500)) {
    try {
      if ((await store.get(key)) === written) await takeBack();
      return true;
    } catch {
      if (Date.now() + pause > until) return false;
      await sleep(pause);
    }
  }
}
