import type { CallContext } from '@toolhost/core';
import type { DispatchResult } from '@toolhost/engine';

/** A call's own context while it runs: its user, its signal, its listener of waits. */
export type RunningCall = CallContext & { signal: AbortSignal };

/**
 * How the host runs each write as one of its calls (the host's CallLifecycle): with its own
 * signal, in the set shutdown waits for, traced and logged once. `Wait` is the host's
 * observer of a call's waits, handed back to it as the caller gave it.
 */
export interface CallRunner<Wait> {
  /** Runs `step` as one call of `name` for a user; a person's pending confirmation is cancelled by shutdown like any call. */
  within(
    name: string,
    userId: string,
    signal: AbortSignal | undefined,
    step: (context: RunningCall) => Promise<DispatchResult>,
    onWait?: Wait,
  ): Promise<DispatchResult>;
  /** Prepares and sends one call, telling whether it may have reached the upstream. */
  callOnce(name: string, args: unknown, context: CallContext): Promise<DispatchResult>;
}

/** What write safety is configured with: the host's `tools` settings. */
export interface WriteSafetySettings {
  /** Ask the person before any write is sent (tools.confirmWrites). */
  confirmWrites: boolean;
  previewTtlSeconds: number;
  previewsPerUser: number;
  idempotencyTtlSeconds: number;
  idempotencyKeysPerUser: number;
  /** With a store replicas share: bytes of previews and stored outcomes one user may keep there. */
  writeRecordBytesPerUser?: number;
  /** With a store replicas share: how long a claim outlives a holder that stopped renewing it. */
  idempotencyClaimSeconds: number;
  /** How long a call waits for the same key's call elsewhere. */
  idempotencyWaitSeconds: number;
}
