import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { SignInMethods } from './options.js';
import { hashOf } from './secrets.js';

/** How a person signed in, as sessions, codes and grants record it (audit, listings). */
export type SignInMethod = 'access-token' | 'upstream' | 'local-user';

/**
 * Whether what was made under a sign-in may be used: `holds`; `ended`, the access token it was
 * made with replaced or its person removed; `unvouched`, a server with no access-token sign-in
 * (or none telling bindings), which cannot tell either and must leave it to one that can.
 */
export type SignInStanding = 'holds' | 'ended' | 'unvouched';

/** What marks a binding kept keyed (below); one without it is a bare hash an older version kept. */
const KEYED = 'hmac:';

/**
 * What a sign-in by access token keeps of the embedder's binding of its person to the token:
 * never the binding (a digest of a secret), but its HMAC under a key derived from the server's
 * seal key. A bare hash, as kept before, lets whoever reads a leaked state file guess a binding
 * of little entropy offline; the key is not in the store. Without a seal key (a memory store,
 * nothing written anywhere) the key is fixed, as good as the bare hash and no worse.
 */
export class SignInBindings {
  private readonly key: Buffer;

  constructor(
    private readonly signIn: SignInMethods,
    sealKey: Buffer | undefined,
  ) {
    const label = 'toolhost authorization server: sign-in binding';
    this.key = Buffer.from(hkdfSync('sha256', sealKey ?? Buffer.alloc(0), Buffer.alloc(0), label, 32));
  }

  /** The user a pasted access token names, whichever form `signIn.accessToken` was given in. */
  userOf(token: string): string | undefined {
    const check = this.signIn.accessToken;
    return typeof check === 'function' ? check(token) : check?.userForToken(token);
  }

  /** What a sign-in by access token keeps of the token now, undefined where the embedder tells none. */
  bindingOf(subject: string): string | undefined {
    const check = this.signIn.accessToken;
    const binding = typeof check === 'object' ? check.bindingOf?.(subject) : undefined;
    return binding === undefined ? undefined : this.keyed(binding);
  }

  /**
   * Whether a sign-in, and whatever was granted under it, still stands: one made without an
   * access token always does; one made with a token only while its person still holds that
   * one. A server that cannot tell (no access-token sign-in here, a replica whose config lags
   * in a rolling restart) vouches for neither.
   */
  standing(subject: string, kept: string | undefined): SignInStanding {
    if (kept === undefined) return 'holds';
    const check = this.signIn.accessToken;
    if (typeof check !== 'object' || check.bindingOf === undefined) return 'unvouched';
    const binding = check.bindingOf(subject);
    if (binding === undefined) return 'ended';
    // Kept by a version before as a bare hash: still read, until its grant ends.
    const expected = Buffer.from(kept.startsWith(KEYED) ? this.keyed(binding) : hashOf(binding));
    const given = Buffer.from(kept);
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'holds' : 'ended';
  }

  /** What a grant keeps from now on: a bare hash a version before kept, keyed anew while it holds. */
  renewed(subject: string, kept: string | undefined): string | undefined {
    if (kept === undefined || kept.startsWith(KEYED) || this.standing(subject, kept) !== 'holds') return kept;
    return this.bindingOf(subject) ?? kept;
  }

  private keyed(binding: string): string {
    return `${KEYED}${createHmac('sha256', this.key).update(binding).digest('base64url')}`;
  }
}
