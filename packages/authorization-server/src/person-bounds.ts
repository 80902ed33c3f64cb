import { hashOf } from './secrets.js';
import type { StateStore } from './state-store.js';

const HOUR = 3600;
const DAY = 86_400;

/**
 * What one person may do, counted in the state store (so every replica, and every host on one
 * file, counts alike): each sign-in makes a browser session, and each authorization a grant
 * that lives a month, so a script, or a site driving a signed-in browser, is held to these.
 */
export const PERSON_BOUNDS = { signInsPerHour: 60, authorizationsPerHour: 60, authorizationsPerDay: 240 };

/** Why an authorization is refused past the bounds, for the client (and the person) to read. */
export const TOO_MANY_AUTHORIZATIONS = `You completed too many authorizations lately (at most ${PERSON_BOUNDS.authorizationsPerHour} an hour and ${PERSON_BOUNDS.authorizationsPerDay} a day); try again later.`;

/** Why a sign-in is refused past the bound. */
export const TOO_MANY_SIGN_INS = `You signed in too often lately (at most ${PERSON_BOUNDS.signInsPerHour} times an hour); try again later.`;

type Counter = { key: string; windowSeconds: number; limit: number };

/**
 * Sign-ins and completed authorizations per person. An authorization counts once its code is
 * exchanged for a grant, not when it starts: one never finished (closed, refused, its code
 * never redeemed) costs the person nothing. Each window starts at its first count.
 */
export class PersonBounds {
  constructor(private readonly store: StateStore) {}

  /** Counts a sign-in of the person: false, not counted, past its bound. */
  signIn(subject: string): Promise<boolean> {
    return this.counted([
      { key: `sign-ins-of:${hashOf(subject)}`, windowSeconds: HOUR, limit: PERSON_BOUNDS.signInsPerHour },
    ]);
  }

  /** Whether the person may be asked to authorize one more (their completed ones read, not counted). */
  async mayAuthorize(subject: string): Promise<boolean> {
    for (const { key, limit } of authorizations(subject))
      if (Number((await this.store.get(key)) ?? 0) >= limit) return false;
    return true;
  }

  /**
   * Counts an authorization whose code is being exchanged: false, not counted, past either
   * bound (codes issued at once, each while the bound was not reached, are held to it here).
   * One that then fails is taken back (`uncount`).
   */
  countAuthorization(subject: string): Promise<boolean> {
    return this.counted(authorizations(subject));
  }

  /** Takes back the count of an authorization that did not complete (best effort). */
  async uncount(subject: string): Promise<void> {
    try {
      for (const { key } of authorizations(subject)) await this.store.decrement(key);
    } catch {
      // Best effort: a count left over bounds the person a little early, for the window's rest.
    }
  }

  /** Counts one on each counter, all or none: past one's limit, those counted are taken back. */
  private async counted(counters: Counter[]): Promise<boolean> {
    const done: string[] = [];
    for (const { key, windowSeconds, limit } of counters) {
      done.push(key);
      if ((await this.store.increment(key, windowSeconds)) <= limit) continue;
      for (const counted of done) await this.store.decrement(counted);
      return false;
    }
    return true;
  }
}

/** The person's completed authorizations, per hour and per day. */
function authorizations(subject: string): Counter[] {
  const who = hashOf(subject);
  return [
    { key: `authorizations-of:${who}:hour`, windowSeconds: HOUR, limit: PERSON_BOUNDS.authorizationsPerHour },
    { key: `authorizations-of:${who}:day`, windowSeconds: DAY, limit: PERSON_BOUNDS.authorizationsPerDay },
  ];
}
