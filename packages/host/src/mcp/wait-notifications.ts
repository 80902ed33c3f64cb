import { type CallWait, type CallWaitObserver, LONG_WAIT_MS } from '../call-waits.js';
import type { ServerContext } from './sdk.js';

/** The `logger` of the host's log notifications. */
const LOGGER_NAME = 'toolhost';

/** How often a client hears of a wait still going on. */
const PROGRESS_EVERY_MS = 1000;

export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; total?: number; message: string };
}

/** A log notification's level (RFC 5424 names, as MCP has them) and data. */
export interface WaitLog {
  level: 'info' | 'warning';
  data: {
    /** One sentence for a person; names the tool set, never a credential or an argument. */
    message: string;
    /** The canonical tool name. */
    tool: string;
    kind: CallWait['reason'];
    /** How long the call waited (pacing, a token refresh) or will wait before it goes on. */
    waitMs: number;
    attempt?: number;
    maxAttempts?: number;
    status?: number;
  };
}

/** The request a call runs for, as far as its waits are told: how to notify, and whether to send progress. */
export interface WaitNotifier {
  /** The request's progress token, if the client sent one: only then is progress sent. */
  progressToken?: string | number;
  notify(notification: ProgressNotification): Promise<void>;
  /** Sends a log notification of the request, if at or above the level the client asked for. */
  log(entry: WaitLog): Promise<void>;
}

const round = (ms: number) => Math.round(ms);

/** What the client reads of a wait as it begins: why the call is held up, and for how long if known. */
function beginning(wait: CallWait): string {
  const ms = round(wait.ms ?? 0);
  switch (wait.reason) {
    case 'retry_after':
      return `${wait.toolSet} answered 429 (too many requests); retrying after the ${ms} ms it asked for.`;
    case 'retry': {
      const status = wait.retry?.status;
      const failed = status !== undefined ? `answered ${status}` : 'could not be reached';
      const attempt = wait.retry ? ` (attempt ${wait.retry.attempt} of ${wait.retry.maxAttempts})` : '';
      return `${wait.toolSet} ${failed}; retrying in ${ms} ms${attempt}.`;
    }
    case 'pacing':
      return `Waiting for ${wait.toolSet}'s request pacing before sending.`;
    case 'token_refresh':
      return `Waiting for ${wait.toolSet}'s access token to be refreshed.`;
  }
}

/** The log notification of a retry, told as its wait begins. */
function logAtStart(wait: CallWait): WaitLog | undefined {
  if (wait.reason !== 'retry_after' && wait.reason !== 'retry') return undefined;
  const retry = wait.retry;
  return {
    level: 'warning',
    data: {
      message: beginning(wait),
      tool: wait.tool,
      kind: wait.reason,
      waitMs: round(wait.ms ?? 0),
      ...(retry
        ? {
            attempt: retry.attempt,
            maxAttempts: retry.maxAttempts,
            ...(retry.status !== undefined ? { status: retry.status } : {}),
          }
        : {}),
    },
  };
}

/** The log notification of a pacing or token-refresh wait, told once it ends, with how long it held the call. */
function logAtEnd(wait: CallWait, waitedMs: number): WaitLog | undefined {
  const ms = round(waitedMs);
  if (ms < 1) return undefined;
  const data = { tool: wait.tool, kind: wait.reason, waitMs: ms };
  if (wait.reason === 'pacing')
    return {
      level: 'info',
      data: { ...data, message: `Waited ${ms} ms for ${wait.toolSet}'s request pacing before sending.` },
    };
  if (wait.reason === 'token_refresh')
    return {
      level: 'info',
      data: { ...data, message: `Waited ${ms} ms for ${wait.toolSet}'s access token to be refreshed.` },
    };
  return undefined;
}

/**
 * How the waits of one call reach the client of its request. Each wait once as a log
 * notification: a retry (after a 429, a 5xx or a network error) as it begins, as a warning,
 * since the upstream caused it; the tool set's own pacing and a token refresh once they end,
 * with how long they held the call, as info (a pacing slot given at once is no wait, and not
 * told). And, when the request carried a progress token,
 * `notifications/progress` after a second of waiting and each second after, with the seconds
 * waited so far (across the call's waits, so it only grows), the total where the wait's length
 * is known (a Retry-After, a backoff), and why. The client knows the call is alive and why it
 * is slow; a client that resets its timeout on progress does not give up on it.
 */
export function waitNotifications(request: WaitNotifier): CallWaitObserver {
  const token = request.progressToken;
  let waitedBefore = 0;
  const tell = (entry: WaitLog | undefined) => {
    if (entry) void request.log(entry).catch(() => {});
  };
  return (wait) => {
    tell(logAtStart(wait));
    if (token === undefined || (wait.ms !== undefined && wait.ms < LONG_WAIT_MS))
      return (waitedMs) => tell(logAtEnd(wait, waitedMs));
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    const message = beginning(wait);
    const notify = () => {
      const progress = Math.round((waitedBefore + elapsed()) * 10) / 10;
      const total = wait.ms === undefined ? undefined : Math.round((waitedBefore + wait.ms / 1000) * 10) / 10;
      void request
        .notify({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress,
            ...(total !== undefined && total >= progress ? { total } : {}),
            message,
          },
        })
        .catch(() => {});
    };
    let repeat: NodeJS.Timeout | undefined;
    const first = setTimeout(() => {
      notify();
      repeat = setInterval(notify, PROGRESS_EVERY_MS);
    }, LONG_WAIT_MS);
    return (waitedMs) => {
      clearTimeout(first);
      clearInterval(repeat);
      waitedBefore += elapsed();
      tell(logAtEnd(wait, waitedMs));
    };
  };
}

/** The waits of a call as notifications of the MCP request it runs for (the request's SSE stream on 2026-07-28). */
export function waitNotificationsOf(ctx: ServerContext): CallWaitObserver {
  const token = ctx.mcpReq._meta?.progressToken;
  return waitNotifications({
    ...(typeof token === 'string' || typeof token === 'number' ? { progressToken: token } : {}),
    notify: (notification) => ctx.mcpReq.notify(notification),
    // The SDK sends it only at or above the level the client asked for (per request or session).
    log: ({ level, data }) => ctx.mcpReq.log(level, data, LOGGER_NAME),
  });
}
