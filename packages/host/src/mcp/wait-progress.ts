import type { CallWaitListener, CallWaitReason } from '@toolhost/core';
import { LONG_WAIT_MS } from '../call-waits.js';

/** How often a client hears of a wait still going on. */
const PROGRESS_EVERY_MS = 1000;

export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; total?: number; message: string };
}

function waitMessage(reason: CallWaitReason, ms: number | undefined): string {
  switch (reason) {
    case 'retry_after':
      return `The API answered 429 (rate limited) and asked to retry after ${Math.round((ms ?? 0) / 1000)} s: waiting, then retrying once.`;
    case 'pacing':
      return "Waiting for a slot under the API's rate limit.";
    case 'token_refresh':
      return 'Waiting for the access token to be refreshed.';
  }
}

/**
 * MCP progress for the waits of one call whose request carried a progress token: after a
 * second of waiting, and each second after, `notifications/progress` with the seconds waited
 * so far (across the call's waits, so it only grows), the total where the wait's length is
 * known (a Retry-After), and why. The client knows the call is alive and why it is slow; a
 * client that resets its timeout on progress does not give up on it.
 */
export function progressOnWait(
  progressToken: string | number,
  send: (notification: ProgressNotification) => Promise<void>,
): CallWaitListener {
  let waitedBefore = 0;
  return (reason, ms) => {
    if (ms !== undefined && ms < LONG_WAIT_MS) return undefined;
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    const notify = () => {
      const progress = Math.round((waitedBefore + elapsed()) * 10) / 10;
      const total = ms === undefined ? undefined : Math.round((waitedBefore + ms / 1000) * 10) / 10;
      void send({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          ...(total !== undefined && total >= progress ? { total } : {}),
          message: waitMessage(reason, ms),
        },
      }).catch(() => {});
    };
    let repeat: NodeJS.Timeout | undefined;
    const first = setTimeout(() => {
      notify();
      repeat = setInterval(notify, PROGRESS_EVERY_MS);
    }, LONG_WAIT_MS);
    return () => {
      clearTimeout(first);
      clearInterval(repeat);
      waitedBefore += elapsed();
    };
  };
}
