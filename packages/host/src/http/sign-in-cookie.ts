import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StateStore } from '@toolhost/authorization-server/state-store';
import type { AccessTokens } from '../auth/access-tokens.js';
import { cookieValue } from './cookies.js';

/** A user's sign-outs kept by cookie id an hour (a version before reads these alone); past them, one record ends the rest. */
const KEPT_PER_USER = 64;

/**
 * The signed sign-in cookie of /connections: the user, an expiry and an id, with an HMAC over
 * them and over the user's current access token (its digest, never the token). A cookie stops
 * working when its user's token is removed or replaced (the operator's config, on every
 * replica that reads it), and at sign-out, recorded until it expires: in the replicas' Redis
 * where they share one (signed out on one, out on all), else here. Kept one by one, a user
 * signing in and out in a loop grew them without bound, so each user has a share (KEPT_PER_USER).
 */
export class SignInCookie {
  constructor(
    private readonly key: Buffer,
    private readonly accessTokens: AccessTokens,
    private readonly signedOut: StateStore,
    private readonly name: string,
    private readonly path: string,
    private readonly maxAgeSeconds: number,
    /** People also sign in through the front door (OAuth), with or without an access token of their own. */
    private readonly frontDoor = false,
  ) {}

  /**
   * What a user's cookie is bound to: their access token's digest (replaced or removed, the
   * cookie stops working); for a person with none who signed in through the front door, the door.
   */
  private bindingOf(user: string): string | undefined {
    return this.accessTokens.bindingOf(user) ?? (this.frontDoor ? 'front-door' : undefined);
  }

  private sign(user: string, expires: number, id: string, binding: string): string {
    return createHmac('sha256', this.key)
      .update(`${user}\n${expires}\n${id}\n${binding}`)
      .digest('base64url');
  }

  /** The Set-Cookie value of a new sign-in; undefined for a user with no access token (and no front door). */
  issue(user: string, secure: boolean): string | undefined {
    const binding = this.bindingOf(user);
    if (binding === undefined) return undefined;
    const expires = Math.floor(Date.now() / 1000) + this.maxAgeSeconds;
    const id = randomBytes(16).toString('base64url');
    const value = `${Buffer.from(user).toString('base64url')}.${expires}.${id}.${this.sign(user, expires, id, binding)}`;
    return `${this.name}=${value}; ${this.attributes(secure)}; Max-Age=${this.maxAgeSeconds}`;
  }

  /** A cookie that ends the sign-in in the browser. */
  clear(secure: boolean): string {
    return `${this.name}=; ${this.attributes(secure)}; Max-Age=0`;
  }

  private attributes(secure: boolean): string {
    return `Path=${this.path}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  /** The sign-in a cookie header carries: valid, unexpired, its token unchanged, not signed out. */
  private async valid(cookieHeader: string | undefined) {
    const raw = cookieValue(cookieHeader, this.name);
    const [encoded, expiresText, id, mac] = (raw ?? '').split('.');
    if (!encoded || !expiresText || !id || !mac) return undefined;
    const user = Buffer.from(encoded, 'base64url').toString('utf8');
    const expires = Number(expiresText);
    const binding = this.bindingOf(user);
    if (binding === undefined || !(expires > Date.now() / 1000)) return undefined;
    const expected = Buffer.from(this.sign(user, expires, id, binding));
    const presented = Buffer.from(mac);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    if (await this.ended(user, id, expires)) return undefined;
    return { user, expires, id };
  }

  /** The user a cookie signs in; undefined otherwise. */
  async user(cookieHeader: string | undefined): Promise<string | undefined> {
    return (await this.valid(cookieHeader))?.user;
  }

  /** Whether the cookie was signed out; a store that cannot answer counts as signed out. */
  private async ended(user: string, id: string, expires: number): Promise<boolean> {
    const keys = [`connections-signed-out:${id}`, `connections-signed-out-until:${user}`];
    const [one, until] = await Promise.all(keys.map((k) => this.signedOut.get(k))).catch(() => ['away']);
    return one !== undefined || Number(until ?? 0) >= expires;
  }

  /** Ends the sign-in the cookie carries, on every replica, whoever still holds a copy. */
  async signOut(cookieHeader: string | undefined): Promise<void> {
    const signedIn = await this.valid(cookieHeader);
    if (!signedIn) return;
    const { user, id, expires } = signedIn;
    const now = Date.now() / 1000;
    const store = this.signedOut;
    if ((await store.increment(`connections-sign-outs:${user}`, this.maxAgeSeconds)) <= KEPT_PER_USER)
      return store.set(`connections-signed-out:${id}`, '1', expires - now);
    // Every cookie issued until now (one with longer to go, given a longer age, too), and only
    // ever later: an earlier cookie signed out now must not bring back those ended since.
    const ends = Math.max(Math.floor(now) + this.maxAgeSeconds, expires);
    for (const key = `connections-signed-out-until:${user}`; ; ) {
      const until = await store.get(key);
      if (Number(until ?? 0) >= ends || (await store.compareAndSet(key, until, `${ends}`, ends - now)))
        return;
    }
  }
}
