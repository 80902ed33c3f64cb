import type { IncomingMessage, ServerResponse } from 'node:http';
import { BadRequest } from './http-util.js';
import { hashOf, newSecret } from './secrets.js';
import type { SignInMethod } from './sign-in-binding.js';
import type { StateStore } from './state-store.js';

const SESSION_SECONDS = 8 * 3600;

/** Who signed in and how; for a sign-in by access token, what it keeps of it (sign-in-binding.ts). */
export interface SignedIn {
  subject: string;
  /** None for a session an older version signed in, which did not say. */
  signedInWith?: SignInMethod;
  binding?: string;
}

/** What a session's sign-in record holds beside it. */
type SignInRecord = Omit<SignedIn, 'subject'>;

/**
 * The browser as this server knows it: one random cookie, HttpOnly and SameSite=Lax (a form
 * posted from another site comes without it), kept only as its hash. A signed-in browser has
 * a session record under that hash; signing in replaces the cookie (no session fixation).
 */
export class BrowserSessions {
  constructor(
    private readonly store: StateStore,
    private readonly secure: () => boolean,
    /** Whether a sign-in still stands (one made with an access token the person no longer holds does not). */
    private readonly holds: (person: SignedIn) => boolean = () => true,
  ) {}

  private cookieName(): string {
    return this.secure() ? '__Host-toolhost-as' : 'toolhost-as';
  }

  /** The browser's id hash, making one (and its cookie) where it has none. */
  browserOf(req: IncomingMessage, res: ServerResponse): string {
    const existing = this.cookie(req);
    if (existing) return hashOf(existing);
    return this.newBrowser(res);
  }

  /** The browser's id hash, or undefined without the cookie. */
  knownBrowser(req: IncomingMessage): string | undefined {
    const existing = this.cookie(req);
    return existing ? hashOf(existing) : undefined;
  }

  newBrowser(res: ServerResponse): string {
    const id = newSecret();
    const attributes = `Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${this.secure() ? '; Secure' : ''}`;
    const previous = res.getHeader('set-cookie');
    const cookies = Array.isArray(previous) ? previous : previous ? [String(previous)] : [];
    res.setHeader('set-cookie', [...cookies, `${this.cookieName()}=${id}; ${attributes}`]);
    return hashOf(id);
  }

  /** The person signed in on this browser, while their sign-in stands. */
  async signedIn(browser: string | undefined): Promise<SignedIn | undefined> {
    if (!browser) return undefined;
    const subject = await this.store.get(`session:${browser}`);
    if (subject === undefined) return undefined;
    const saved = await this.store.get(`session-sign-in:${browser}`);
    // None: signed in by a version before, which kept an access token's binding alone.
    const legacy = saved === undefined ? await this.store.get(`session-binding:${browser}`) : undefined;
    const record: SignInRecord = saved !== undefined ? JSON.parse(saved) : legacy ? { binding: legacy } : {};
    const person = { subject, ...record };
    return this.holds(person) ? person : undefined;
  }

  /**
   * Signs the person in: a fresh browser id, its session naming the user. How they signed in
   * is a record beside it (a version before reads the session alone), written first and kept
   * a minute longer: a session found without it would be taken for a sign-in bound to nothing
   * (written in the same second, it expired first). A sign-in by access token also writes the
   * record a version before reads its binding from, in a form it never finds right: a replica
   * of that version asks the person to sign in again, rather than take them as bound to nothing.
   */
  async signIn(res: ServerResponse, person: SignedIn): Promise<string> {
    const browser = this.newBrowser(res);
    const { subject, ...record } = person;
    await this.store.set(`session-sign-in:${browser}`, JSON.stringify(record), SESSION_SECONDS + 60);
    if (person.binding !== undefined)
      await this.store.set(`session-binding:${browser}`, person.binding, SESSION_SECONDS + 60);
    await this.store.set(`session:${browser}`, subject, SESSION_SECONDS);
    return browser;
  }

  private cookie(req: IncomingMessage): string | undefined {
    const name = this.cookieName();
    for (const part of String(req.headers.cookie ?? '').split(';')) {
      const at = part.indexOf('=');
      if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
    }
    return undefined;
  }
}

/**
 * Refuses a form posted from another site: the browser's Fetch Metadata and Origin must say
 * this server's own origin (a cross-site page can set neither).
 */
export function requireSameOrigin(req: IncomingMessage, issuer: string): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin')
    throw new BadRequest(403, 'access_denied', 'This form was posted from another site');
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(issuer).origin)
    throw new BadRequest(403, 'access_denied', 'This form was posted from another origin');
}

/** A form's anti-forgery token, checked without leaking its value by timing. */
export function requireToken(given: string | undefined, expected: string): void {
  if (!given || given.length !== expected.length || hashOf(given) !== hashOf(expected))
    throw new BadRequest(403, 'access_denied', 'This form has expired or was not issued here; start again');
}
