import { ENGINE_DEFAULTS } from '@toolhost/engine';

/** `engine`: limits on upstream requests. */
export const engineSection = {
  type: 'object',
  additionalProperties: false,
  description: 'Limits on upstream requests.',
  properties: {
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: 3_600_000,
      description:
        'Per upstream request, in ms: the whole exchange, from sending to the last byte of the answer; a request also waits at most this long for a slot.',
      default: ENGINE_DEFAULTS.timeoutMs,
    },
    maxResponseBytes: {
      type: 'integer',
      minimum: 1024,
      maximum: 1024 * 1024 * 1024,
      description: 'Largest upstream response accepted, in bytes.',
      default: ENGINE_DEFAULTS.maxResponseBytes,
    },
    maxConcurrentRequests: {
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
      description: 'Upstream requests in flight at once across all tools; the rest queue.',
      default: ENGINE_DEFAULTS.maxConcurrentRequests,
    },
    maxConcurrentRequestsPerUpstream: {
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
      description: `Upstream requests in flight at once to one upstream origin, so that a slow upstream cannot take every slot. Unset: ${ENGINE_DEFAULTS.maxConcurrentRequestsPerUpstream} where the tool sets reach more than one origin, and maxConcurrentRequests where they all reach one (no other upstream to keep slots for).`,
    },
    maxRateLimitWaitSeconds: {
      type: 'number',
      minimum: 0,
      maximum: 3600,
      description: 'Longest Retry-After honoured for one retry after a 429; longer waits return the error.',
      default: ENGINE_DEFAULTS.maxRateLimitWaitSeconds,
    },
    retry: {
      type: 'object',
      additionalProperties: false,
      description:
        'Retries of network errors and 5xx, only where safe (idempotent tools, or a request that never left), with exponential backoff and full jitter.',
      properties: {
        maxAttempts: {
          type: 'integer',
          minimum: 1,
          maximum: 10,
          description: 'Attempts in all, the first included.',
          default: ENGINE_DEFAULTS.retry.maxAttempts,
        },
        baseDelayMs: {
          type: 'integer',
          minimum: 0,
          maximum: 60_000,
          description: 'Backoff before the first retry, doubled for each further one.',
          default: ENGINE_DEFAULTS.retry.baseDelayMs,
        },
        maxDelayMs: {
          type: 'integer',
          minimum: 0,
          maximum: 600_000,
          description: 'Longest backoff between two attempts.',
          default: ENGINE_DEFAULTS.retry.maxDelayMs,
        },
      },
    },
  },
} as const;
