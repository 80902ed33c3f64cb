/**
 * The host's errors' marker (its HostError), the same in every copy of it: the host's
 * `HostError.isInstance` knows this package's errors as its own, as it does the shared store's.
 */
const HOST_ERROR = Symbol.for('toolhost.host.error');

/** Stable codes of this package's errors, among the host's (`HostErrorCode`). */
export type CredentialsErrorCode = 'token_store_invalid' | 'oauth_callback_failed';

/**
 * The base of this package's errors. A host embedded next to another copy of this package
 * cannot rely on `instanceof`; `isInstance` checks the global marker and the code instead.
 */
export abstract class CredentialsError extends Error {
  readonly [HOST_ERROR] = true;
  abstract readonly code: CredentialsErrorCode;
}

/** An `isInstance` for one error class, by its code (the host's marker, whichever copy threw it). */
export function hasCode<T extends Error & { code: CredentialsErrorCode }>(code: CredentialsErrorCode) {
  return (value: unknown): value is T =>
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[HOST_ERROR] === true &&
    (value as { code?: unknown }).code === code;
}

/** A token or record file (or the shared store's copy) this host cannot use: unreadable, altered, another key. */
export class TokenStoreError extends CredentialsError {
  readonly code = 'token_store_invalid' as const;
  static isInstance = hasCode<TokenStoreError>('token_store_invalid');
  override readonly name = 'TokenStoreError';
}
