import { ToolError } from '@toolhost/core';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { redactRedisUrl } from './redis-url.js';

export class SharedStoreStartError extends Error {
  override readonly name = 'SharedStoreStartError';
}

/** The shared store's answer to any call it cannot serve while Redis is away. */
export function storeUnavailable(): ToolError {
  return new ToolError({
    code: 'store_unavailable',
    retryable: true,
    message: 'The shared token store (Redis) is unreachable; try again shortly.',
  });
}

/** Runs a Redis command; an unreachable Redis becomes `store_unavailable`, never an empty answer. */
export async function inRedis<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch {
    throw storeUnavailable();
  }
}

/**
 * Connects to Redis (redis:// or rediss:// for TLS) and waits until it answers, so that a
 * host that cannot reach its shared store refuses to start rather than serve without it.
 * Commands issued while the connection is down fail at once instead of queueing: a call then
 * answers `store_unavailable` quickly, and the client keeps reconnecting in the background.
 */
export async function connectRedis(url: string, logger?: Logger, connectTimeoutMs = 5000): Promise<Redis> {
  const shown = redactRedisUrl(url);
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: connectTimeoutMs,
    // A Redis that hangs (overloaded, paused) must not hang calls: they answer
    // store_unavailable instead.
    commandTimeout: 5000,
    // The first connection must not retry: start-up reports the failure instead.
    retryStrategy: () => null,
  });
  let lastError: string | undefined;
  client.on('error', (e: Error) => {
    // One line per outage, not per reconnect attempt.
    if (lastError === e.message) return;
    lastError = e.message;
    logger?.warn({ redis: shown, err: e.message }, 'shared store (Redis) unreachable');
  });
  client.on('ready', () => {
    if (lastError !== undefined) logger?.info({ redis: shown }, 'shared store (Redis) reachable again');
    lastError = undefined;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    throw new SharedStoreStartError(
      `Cannot reach the shared store at ${shown}: ${e instanceof Error ? e.message : String(e)}. Start Redis, or unset TOOLHOST_REDIS_URL / store.redisUrl to run a single host with its own store.`,
    );
  }
  // Once serving, reconnect for as long as it takes, backing off up to 2 s between attempts.
  client.options.retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000);
  return client;
}
