/**
 * The engine's limits when the caller sets none. The host's config schema takes its defaults
 * for `engine.*` from here, so the engine used alone and the host agree by construction.
 */
export const ENGINE_DEFAULTS = {
  timeoutMs: 30_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxConcurrentRequests: 64,
  maxConcurrentRequestsPerUpstream: 32,
  maxRateLimitWaitSeconds: 30,
  retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 4000 },
} as const;
