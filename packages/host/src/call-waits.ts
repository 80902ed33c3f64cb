import type { CallWaitListener, CallWaitReason } from '@toolhost/core';
import type { Logger } from './logger.js';

/** A wait this long or longer is worth telling: the client (progress) and the log. */
export const LONG_WAIT_MS = 1000;

/**
 * The wait listener of one call: a log line for each wait of a second or more once it ends
 * (why, how long, which call), and the caller's own listener (MCP progress) told as well.
 * Short waits, the common pacing slot of a few milliseconds, cost a clock read and no line.
 */
export function callWaitListener(
  log: Logger | undefined,
  call: { id: number; tool: string },
  forward: CallWaitListener | undefined,
): CallWaitListener | undefined {
  if (!log && !forward) return undefined;
  return (reason: CallWaitReason, ms: number | undefined) => {
    const started = performance.now();
    const forwarded = forward?.(reason, ms);
    return () => {
      forwarded?.();
      const waited = performance.now() - started;
      if (log && waited >= LONG_WAIT_MS)
        log.info({ call: call.id, tool: call.tool, wait: reason, ms: Math.round(waited) }, 'call waited');
    };
  };
}
