import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { CONFIRMED_CALL_TTL_MS } from '@toolhost/write-safety/confirmed-call-ttl';
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from './sdk.js';

const require = createRequire(import.meta.url);
// Required, not imported: see docs/performance.md, "CommonJS packages at start".
const { stringify } = require('safe-stable-stringify') as typeof import('safe-stable-stringify');

/**
 * What a round trip's `requestState` binds: the user, the tool, the call's arguments, once.
 * `k` says what the client was asked: the person's confirmation of a write, or a sign-in.
 */
export interface ConfirmationPayload {
  k: 'confirm' | 'signin';
  /** The user the question was put for. */
  u: string;
  /** The canonical tool (or apply_preview). */
  t: string;
  /** A digest of the arguments and idempotency key, so that the answer sends only that call. */
  d: string;
  /**
   * The confirmation's id: the call it answers is sent at most once per id (the host's
   * `confirmationId`), and the same state again answers that call's outcome.
   */
  n: string;
}

/**
 * As long as a person has to decide, as on the session era (the question's timeout there);
 * a confirmed call's outcome is kept as long, for a retry of its state.
 */
const STATE_TTL_SECONDS = CONFIRMED_CALL_TTL_MS / 1000;

/** The user a request is made for: set by the endpoint (access tokens), the same on stdio. */
const userOf = (ctx: ServerContext): string => ctx.http?.authInfo?.clientId ?? '';

/**
 * The `requestState` of a confirmation asked with `input_required` (MCP 2026-07-28, where the
 * server cannot ask mid-call): HMAC-signed with a key every replica derives alike, expiring,
 * bound to the user (in the MAC, through the SDK's codec) and to the exact call. Nothing is
 * written here: the call it confirms is sent once per state by write safety, which keeps its
 * attempt and outcome (Redis when replicas share a store), so that a client whose answer was
 * lost can send the same state again and get that outcome rather than a second request.
 */
export class ConfirmationStates {
  readonly codec: RequestStateCodec<ConfirmationPayload>;

  constructor(key: Uint8Array) {
    this.codec = createRequestStateCodec<ConfirmationPayload>({
      key,
      ttlSeconds: STATE_TTL_SECONDS,
      bind: userOf,
    });
  }

  /** The state to send with the question about this call. */
  mint(
    ctx: ServerContext,
    kind: ConfirmationPayload['k'],
    userId: string,
    tool: string,
    digest: string,
  ): Promise<string> {
    const nonce = randomBytes(16).toString('base64url');
    return this.codec.mint({ k: kind, u: userId, t: tool, d: digest, n: nonce }, ctx);
  }

  /** Why an answered state cannot confirm this call (another call's, another user's), or undefined when it does. */
  refusal(state: ConfirmationPayload, userId: string, tool: string, digest: string): string | undefined {
    if (state.u !== userId || state.t !== tool || state.d !== digest)
      return 'The requestState was issued for another call; call the tool again to be asked anew.';
    return undefined;
  }
}

/** The digest a confirmation binds: the tool, its arguments (key order aside) and the idempotency key. */
export function callDigest(tool: string, args: unknown, idempotencyKey: unknown): string {
  return createHash('sha256')
    .update(stringify([tool, args ?? {}, idempotencyKey ?? null]) ?? '')
    .digest('base64url');
}
