import type { SignInMethods } from './options.js';
import { hashOf } from './secrets.js';

/** The user a pasted access token names, whichever form `signIn.accessToken` was given in. */
export function userOfAccessToken(signIn: SignInMethods, token: string): string | undefined {
  const check = signIn.accessToken;
  return typeof check === 'function' ? check(token) : check?.userForToken(token);
}

/**
 * What a sign-in by access token keeps of the token: the hash of the embedder's binding of the
 * user to it (never the binding itself, a digest of a secret), undefined where it tells none.
 */
export function accessTokenBinding(signIn: SignInMethods, subject: string): string | undefined {
  const check = signIn.accessToken;
  const binding = typeof check === 'object' ? check.bindingOf?.(subject) : undefined;
  return binding === undefined ? undefined : hashOf(binding);
}

/**
 * Whether a sign-in, and whatever was granted under it, still stands: one made without an
 * access token always does; one made with a token only while the person still holds that one.
 * Access-token sign-in turned off since, that token can no longer be vouched for: it does not.
 */
export function signInHolds(signIn: SignInMethods, subject: string, binding: string | undefined): boolean {
  return binding === undefined || accessTokenBinding(signIn, subject) === binding;
}
