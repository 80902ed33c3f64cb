import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallContext } from '@toolhost/core';
import type { EngineObserver, RateLimitWaitKind, UpstreamRetry } from '@toolhost/engine';

/**
 * Something worth telling a caller while its call runs: a wait before the request leaves, or a
 * retry after a failed attempt. `level` is an MCP log level (RFC 5424 names): a wait for the
 * tool set's own pacing is `info`, a wait or retry the upstream caused is `warning`.
 */
export interface CallReport {
  level: 'info' | 'warning';
  /** One sentence for a person; names the tool set, never a credential or an argument. */
  message: string;
  /** The canonical tool name. */
  tool: string;
  kind: RateLimitWaitKind | 'retry';
  /** How long the request waited (`pacing`) or will wait before it leaves again. */
  waitMs: number;
  /** For a retry: the attempt about to be made, of how many, and the failed attempt's status. */
  attempt?: number;
  maxAttempts?: number;
  status?: number;
}

export type CallReportListener = (report: CallReport) => void;

const round = (ms: number) => Math.round(ms);

/** The report of an engine event, in words a person reads. */
function waitReport(tool: string, toolSet: string, kind: RateLimitWaitKind, waitMs: number): CallReport {
  return kind === 'pacing'
    ? {
        level: 'info',
        kind,
        tool,
        waitMs: round(waitMs),
        message: `Waited ${round(waitMs)} ms for ${toolSet}'s request pacing before sending.`,
      }
    : {
        level: 'warning',
        kind,
        tool,
        waitMs: round(waitMs),
        message: `${toolSet} answered 429 (too many requests); retrying after the ${round(waitMs)} ms it asked for.`,
      };
}

function retryReport(tool: string, toolSet: string, retry: UpstreamRetry): CallReport {
  const failed = retry.status !== undefined ? `answered ${retry.status}` : 'could not be reached';
  return {
    level: 'warning',
    kind: 'retry',
    tool,
    waitMs: round(retry.delayMs),
    attempt: retry.attempt,
    maxAttempts: retry.maxAttempts,
    ...(retry.status !== undefined ? { status: retry.status } : {}),
    message: `${toolSet} ${failed}; retrying in ${round(retry.delayMs)} ms (attempt ${retry.attempt} of ${retry.maxAttempts}).`,
  };
}

/**
 * Carries the engine's reports of a call (waits, retries) to whoever started the call, while it
 * runs: the MCP server passes them on as log notifications of the request. The listener is set
 * around the call (`within`) and tied to the call's own context when the call starts (`bind`),
 * since the engine's hooks may run in another call's continuation (a queue releasing the next
 * request), where the surrounding listener would be the wrong one.
 */
export class CallReports {
  private readonly listening = new AsyncLocalStorage<CallReportListener>();
  private readonly byCall = new WeakMap<CallContext, CallReportListener>();

  /** Runs `fn` with `listener` told of every report of the calls it starts. */
  within<T>(listener: CallReportListener | undefined, fn: () => T): T {
    return listener ? this.listening.run(listener, fn) : fn();
  }

  /** Ties a call, as it starts, to the listener around it (if any). */
  bind(context: CallContext): void {
    const listener = this.listening.getStore();
    if (listener) this.byCall.set(context, listener);
  }

  /** The engine's hooks, turned into reports for the call's listener. */
  readonly observer: EngineObserver = {
    rateLimitWait: (context, tool, kind, waitMs) => {
      this.byCall.get(context)?.(waitReport(tool.name, tool.toolSet.toolSet, kind, waitMs));
    },
    retry: (context, tool, retry) => {
      this.byCall.get(context)?.(retryReport(tool.name, tool.toolSet.toolSet, retry));
    },
  };
}

/** One observer telling each of `observers` in turn. */
export function allObservers(...observers: EngineObserver[]): EngineObserver {
  const upstream = observers.filter((o) => o.upstreamResponse);
  return {
    // Only when one listens: the engine times each attempt only for an observer that wants it.
    ...(upstream.length > 0
      ? {
          upstreamResponse: (...args) => {
            for (const o of upstream) o.upstreamResponse?.(...args);
          },
        }
      : {}),
    rateLimitWait: (...args) => {
      for (const o of observers) o.rateLimitWait?.(...args);
    },
    retry: (...args) => {
      for (const o of observers) o.retry?.(...args);
    },
  };
}
