import type { CallWaitListener, CallWaitReason, CallWaitRetry } from '@toolhost/core';
import type { Logger } from './logger.js';

/** A wait this long or longer is worth telling: the client (progress) and the log. */
export const LONG_WAIT_MS = 1000;

/** A wait of one call, as the host tells whoever started the call. */
export interface CallWait {
  /** The canonical tool name. */
  tool: string;
  toolSet: string;
  reason: CallWaitReason;
  /** How long the wait lasts, where known as it starts (a Retry-After, a retry's backoff). */
  ms?: number;
  /** For a `retry`: the attempt it comes before, and why the last one failed. */
  retry?: CallWaitRetry;
}

/**
 * Told as each wait of a call starts; the function it returns, if any, is called as the wait
 * ends, with how long it held the call.
 */
export type CallWaitObserver = (wait: CallWait) => ((waitedMs: number) => void) | undefined;

/**
 * The one wait listener of a call, on its context: the engine (pacing, a 429's Retry-After, a
 * retry's backoff) and the auth provider (a token refresh) tell it of each wait. It writes a
 * log line for each wait of a second or more once it ends (why, how long, which call), and
 * tells the caller's observer (the MCP server: progress and log notifications) of the wait
 * with the call's tool. Short waits, the common pacing slot of a few milliseconds, cost a
 * clock read and no line.
 */
export function callWaitListener(
  log: Logger | undefined,
  call: { id: number; tool: string; toolSet: string },
  caller: CallWaitObserver | undefined,
): CallWaitListener | undefined {
  if (!log && !caller) return undefined;
  // The observer hears of the call; its failure is not the call's (it failed it, unsent or
  // unretried, as an internal error).
  const heard = <T>(tell: () => T): T | undefined => {
    try {
      return tell();
    } catch (e) {
      log?.warn({ call: call.id, tool: call.tool, err: (e as Error)?.message }, 'wait observer failed');
      return undefined;
    }
  };
  return (reason, ms, retry) => {
    const started = performance.now();
    const told = heard(() =>
      caller?.({
        tool: call.tool,
        toolSet: call.toolSet,
        reason,
        ...(ms !== undefined ? { ms } : {}),
        ...(retry ? { retry } : {}),
      }),
    );
    return (waitedMs) => {
      const waited = waitedMs ?? performance.now() - started;
      heard(() => told?.(waited));
      if (log && waited >= LONG_WAIT_MS)
        log.info({ call: call.id, tool: call.tool, wait: reason, ms: Math.round(waited) }, 'call waited');
    };
  };
}
