import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { Replicas } from '../replicas.js';
import { cookieValue } from './cookies.js';

/**
 * Sign-ins ended before their cookie expires (sign-out), by the cookie's id: kept until that
 * expiry, in Redis where replicas share one (signed out on one, out on all), else here.
 */
export interface SignedOut {
  add(id: string, expiresAtSeconds: number): Promise<void>;
  has(id: string): Promise<boolean>;
}

/** This process's sign-outs. */
export function signedOutHere(): SignedOut {
  const ended = new Map<string, number>();
  return {
    async add(id, expiresAt) {
      const now = Date.now() / 1000;
      for (const [old, until] of ended) if (until <= now) ended.delete(old);
      ended.set(id, expiresAt);
    },
    async has(id) {
      return (ended.get(id) ?? 0) > Date.now() / 1000;
    },
  };
}

/** The replicas' sign-outs, in Redis; a Redis that cannot answer counts as signed out. */
export function signedOutInRedis(redis: Replicas['redis']): SignedOut {
  const key = (id: string) => `connections-signed-out:${id}`;
  return {
    async add(id, expiresAt) {
      await redis.call('SET', key(id), '1', 'EXAT', Math.ceil(expiresAt));
    },
    async has(id) {
      return (await redis.call('EXISTS', key(id)).catch(() => 1)) === 1;
    },
  };
}

/**
 * The signed sign-in cookie of /connections: the user, an expiry and an id, with an HMAC over
 * them and over the user's current access token (its digest, never the token). A cookie stops
 * working when its user's token is removed or replaced (the operator's config, on every
 * replica that reads it), and at sign-out, which records its id.
 */
export class SignInCookie {
  constructor(
    private readonly key: Buffer,
    private readonly accessTokens: AccessTokens,
    private readonly signedOut: SignedOut,
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
    if (await this.signedOut.has(id)) return undefined;
    return { user, expires, id };
  }

  /** The user a cookie signs in; undefined otherwise. */
  async user(cookieHeader: string | undefined): Promise<string | undefined> {
    return (await this.valid(cookieHeader))?.user;
  }

  /** Ends the sign-in the cookie carries, on every replica, whoever still holds a copy. */
  async signOut(cookieHeader: string | undefined): Promise<void> {
    const signedIn = await this.valid(cookieHeader);
    if (signedIn) await this.signedOut.add(signedIn.id, signedIn.expires);
  }
}
