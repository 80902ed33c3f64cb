import type { CallContext } from '@toolhost/core';
import type { RegisteredTool } from './registry.js';

export interface EngineOptions {
  /**
   * Per upstream request, in milliseconds (default 30 s): the whole exchange, from sending to
   * the last byte of the answer. A request also waits at most this long for a slot.
   */
  timeoutMs?: number;
  /** Largest upstream response accepted, in bytes (default 10 MiB). */
  maxResponseBytes?: number;
  /**
   * Upstream requests in flight at once across all tools (default 64); the rest queue. Give
   * `UndiciHttpSender` as many connections per upstream, or it holds those past its own 64.
   */
  maxConcurrentRequests?: number;
  /**
   * Upstream requests in flight at once to one upstream (scheme, host and port), so that one
   * slow upstream cannot take every slot from the others. Default: 32 where the tools reach
   * more than one upstream; where they all reach one, `maxConcurrentRequests` (there is no
   * other upstream to keep slots for).
   */
  maxConcurrentRequestsPerUpstream?: number;
  /**
   * Retries of network errors and 5xx, only where safe: idempotent tools, or a request that
   * never left. Backoff is exponential with full jitter.
   */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Longest wait honoured for one retry after a 429 (default 30 s); longer waits return the error. */
  maxRateLimitWaitSeconds?: number;
  /** Told about failures that are bugs (returned to callers only as `internal_error`), for logging. */
  onUnexpectedError?: (error: unknown, tool: string) => void;
  /** Told what happens inside a call (upstream answers, rate-limit waits), for traces and metrics. */
  observer?: EngineObserver;
  /** What an operator does to give a tool set a setting it lacks (default: the config key). */
  settingHint?: (toolSet: string, setting: string) => string;
}

/**
 * What the engine reports about a call while it runs. Each hook receives the call's own
 * `CallContext` object, so a host can tie the reports to the call it started (a span, a log
 * line) without the engine knowing about any telemetry library.
 */
export interface EngineObserver {
  /** An upstream answered one attempt (every attempt of a retried call is reported). */
  upstreamResponse?(context: CallContext, tool: RegisteredTool, status: number, durationMs: number): void;
  /**
   * A request waited before leaving: for its pacing slot (`pacing`), or for the wait an
   * upstream asked for with a 429 (`retry_after`).
   */
  rateLimitWait?(context: CallContext, tool: RegisteredTool, kind: RateLimitWaitKind, waitMs: number): void;
  /**
   * An attempt failed in a way that is retried (a network error, a 5xx): attempt `attempt`
   * leaves after `delayMs` of backoff. `status` is the upstream's answer, absent when none came.
   */
  retry?(context: CallContext, tool: RegisteredTool, retry: UpstreamRetry): void;
}

export type RateLimitWaitKind = 'pacing' | 'retry_after';

/** A retry about to be made, as `EngineObserver.retry` is told of it. */
export interface UpstreamRetry {
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  delayMs: number;
  /** The failed attempt's status; absent when it got no answer. */
  status?: number;
}
