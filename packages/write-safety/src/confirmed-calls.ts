import type { ToolOutcome } from '@toolhost/core';
import type { KeyKind } from './idempotency-keys.js';

/** How a person checks whether the write was made before deciding to send it again. */
const CHECK =
  'Check upstream whether the change was made (read the record back with a read-only tool, or in the vendor) before calling the tool again: a new call asks the person anew and sends anew.';

/**
 * A person's confirmation of one call, kept as an idempotency key of that call: the call it
 * confirms is sent at most once, and a retry with the same confirmation (a client whose
 * answer was lost when its replica died) gets the first outcome, or is told that the request
 * may have reached the upstream, never sent again.
 */
export const CONFIRMED_CALLS: KeyKind = {
  name: 'confirmed',
  conflict: (): ToolOutcome => ({
    ok: false,
    error: {
      code: 'invalid_argument',
      message:
        'This confirmation was given for another call; call the tool again to be asked anew. Nothing was sent.',
      retryable: false,
      parameter: 'requestState',
    },
  }),
  inProgress: (waitedMs): ToolOutcome => ({
    ok: false,
    error: {
      code: 'confirmation_in_progress',
      message: `The call this confirmation was given for is still running (on this host or another replica; waited ${Math.round(waitedMs / 1000)} s). Nothing was sent now: call again with the same requestState and answer shortly to get its outcome.`,
      retryable: true,
      retryAfterSeconds: 2,
    },
  }),
  outcomeUnknown: (): ToolOutcome => ({
    ok: false,
    error: {
      code: 'confirmation_outcome_unknown',
      message: `The call this confirmation was given for stopped before its outcome was stored (its host or replica stopped, or lost its store): its request may have reached the upstream. Nothing was sent now, and this confirmation never sends it. ${CHECK}`,
      retryable: false,
    },
  }),
  tooMany: (max, scope, ttlMs): ToolOutcome => ({
    ok: false,
    error: {
      code: 'store_unavailable',
      message: `You have ${max} confirmed writes whose outcomes are kept for a retry of their confirmation, the most one user may have ${scope} (tools.idempotencyKeysPerUser; each is kept ${ttlMs / 1000} s): try again later. Nothing was sent.`,
      retryable: true,
    },
  }),
};
