/** Stable codes of the host's own errors, for callers that act on them across package copies. */
export type HostErrorCode =
  | 'config_invalid'
  | 'plugin_load_failed'
  | 'oauth_callback_failed'
  | 'token_store_invalid'
  | 'connections_unavailable';

const MARKER = Symbol.for('toolhost.host.error');

/**
 * The base of the host's error classes. A host embedded next to another copy of this package
 * (two versions in one tree) cannot rely on `instanceof`; `isInstance` checks a global marker
 * and the code instead, as `ToolError.isInstance` does for the engine.
 */
export abstract class HostError extends Error {
  readonly [MARKER] = true;
  abstract readonly code: HostErrorCode;

  static isInstance(value: unknown): value is HostError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** An `isInstance` for one error class, by its code. */
export function hasCode<T extends HostError>(code: HostErrorCode) {
  return (value: unknown): value is T => HostError.isInstance(value) && value.code === code;
}
