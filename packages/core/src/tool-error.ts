/** Stable error codes an agent can act on. */
export type ToolErrorCode =
  | 'invalid_argument'
  | 'unknown_tool'
  | 'authorization_required'
  | 'missing_secret'
  | 'configuration_error'
  | 'payload_too_large'
  | 'upstream_error'
  | 'upstream_rate_limited'
  | 'upstream_unavailable'
  // Where the host keeps state (Redis, or its encrypted file) cannot be used right now; retry later.
  | 'store_unavailable'
  | 'response_too_large'
  | 'timeout'
  | 'cancelled'
  // Write safety (the host's previews, confirmations and idempotency keys): nothing was sent.
  | 'preview_not_found'
  | 'preview_used'
  | 'preview_expired'
  | 'confirmation_required'
  | 'idempotency_conflict'
  // The same key's call is still running elsewhere: nothing was sent; call again shortly.
  | 'idempotency_in_progress'
  // The same key's call stopped before its outcome was stored: it may have reached the
  // upstream; nothing was sent now, and this key never sends again.
  | 'idempotency_outcome_unknown'
  // The same confirmation's call (MCP 2026-07-28 `requestState`) is still running elsewhere:
  // nothing was sent; call again with it shortly.
  | 'confirmation_in_progress'
  // The same confirmation's call stopped before its outcome was stored: it may have reached
  // the upstream; nothing was sent now, and this confirmation never sends again.
  | 'confirmation_outcome_unknown'
  | 'internal_error';

/** A request as it would be sent, shown before sending: every credential redacted. */
export interface RequestPreview {
  /** Applying it (the host's `apply_preview`) sends exactly this request, once. */
  preview_id: string;
  /** The canonical tool name. */
  tool: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  /** ISO 8601; after it the preview can no longer be applied. */
  expires_at: string;
}

/** The plain-data shape of a tool error, as it crosses package and process boundaries. */
export interface ToolErrorInfo {
  code: ToolErrorCode;
  message: string;
  /** Whether calling again unchanged could succeed. */
  retryable: boolean;
  /** Upstream HTTP status, where one was received. */
  status?: number;
  /** Upstream error body (bounded), where one was received. */
  upstream?: unknown;
  /** The tool parameter at fault, for invalid_argument. */
  parameter?: string;
  /** For authorization_required: where the user authorizes, and the scopes asked for. */
  authorization?: { url?: string; provider: string; scopes: readonly string[]; id?: string };
  /** Seconds the upstream asked to wait, for rate limits. */
  retryAfterSeconds?: number;
  /** For confirmation_required: the request waiting for a person's agreement. */
  preview?: RequestPreview;
}

const MARKER = Symbol.for('toolhost.core.tool-error');

/**
 * The one error class of the engine. Independently versioned packages may load two copies
 * of core, where `instanceof` fails; `ToolError.isInstance` checks a global marker instead.
 */
export class ToolError extends Error {
  readonly [MARKER] = true;
  readonly info: ToolErrorInfo;
  /** The request certainly never reached the upstream (e.g. connection refused): safe to retry any method. */
  readonly requestNotSent: boolean;

  constructor(info: ToolErrorInfo, options: { requestNotSent?: boolean } = {}) {
    super(info.message);
    this.name = 'ToolError';
    this.info = info;
    this.requestNotSent = options.requestNotSent ?? false;
  }

  get code(): ToolErrorCode {
    return this.info.code;
  }

  static isInstance(value: unknown): value is ToolError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  static invalidArgument(parameter: string, message: string): ToolError {
    return new ToolError({ code: 'invalid_argument', message, parameter, retryable: false });
  }
}
