import type { PacerFactory } from '@toolhost/engine';
import type {
  AuthorizationFlows,
  ExpiringRecords,
  HostParts,
  PerUserPlaces,
  RefreshLock,
  Replicas,
  StoreSettings,
} from './ports.js';
import { RedisAuthorizationSignals } from './redis-authorization-signals.js';
import { RedisChannels } from './redis-channels.js';
import {
  connectRedis,
  type Durability,
  inRedis,
  type SharedRedis,
  SharedStoreStartError,
  writeDurably,
} from './redis-client.js';
import { RedisPendingAuthorizations } from './redis-pending-authorizations.js';
import { RedisPlaces } from './redis-places.js';
import { RedisRecords } from './redis-records.js';
import { RedisResults } from './redis-results.js';
import { RedisSessions } from './redis-sessions.js';
import { RedisTokenStore } from './redis-token-store.js';
import { redactRedisUrl } from './redis-url.js';
import { RedisRefreshLock } from './refresh-lock.js';
import { SharedCipher } from './shared-cipher.js';
import { sharedPacers } from './shared-pacer.js';
import { StoreHealth } from './store-health.js';

/**
 * What replicas share through Redis: tokens, the refresh lock, pacing, pending
 * authorizations and their completion, the keys that sign cookies, pub/sub, and write
 * previews and idempotency keys.
 */
export interface SharedStore {
  readonly redis: SharedRedis;
  readonly tokenStore: RedisTokenStore;
  /** Tokens' and records' encryption, its salt checked against Redis's at every read. */
  readonly cipher: SharedCipher;
  readonly refreshLock: RefreshLock;
  readonly pacers: PacerFactory;
  /** Per pacer, 1 while it paces per process because Redis is unreachable. */
  degradedPacing(): Record<string, number>;
  readonly channels: RedisChannels;
  /** A provider's pending flows, and their completion told to whichever replica waits. */
  flows(providerId: string): AuthorizationFlows;
  /** A key for signing cookies, the same on every replica (derived from TOOLHOST_TOKEN_KEY). */
  signingKey(purpose: string): Buffer;
  readonly writeRecords: ExpiringRecords;
  /** Each user's previews and idempotency keys, counted across the replicas for their bounds. */
  readonly places: PerUserPlaces;
  /** Results too large for a tool result, readable on every replica by their owner. */
  readonly results: RedisResults;
  /**
   * Whether the store serves every call (probed: a frozen Redis, a cluster master down or a
   * slot range without a copy count as down, though the connection stays open): for
   * `/readyz` and `toolhost_shared_store_up`.
   */
  reachable(): boolean;
  /** What the transports and the MCP layer use of it: the replicas port (see replicas.ts). */
  readonly replicas: Replicas;
  close(): Promise<void>;
}

/** Where the store is and how it behaves, from the host's config and environment. */
export interface SharedStoreOptions {
  /** The Redis URL in effect (TOOLHOST_REDIS_URL, `store.redisUrl` or the first Cluster node). */
  url: string;
  /** TOOLHOST_TOKEN_KEY: every value in Redis is sealed with it. */
  secret: string | undefined;
  /** The config's `store` section. */
  settings?: StoreSettings | undefined;
  /** How long a refresh lock lasts if its holder never releases it (`auth.refreshLockSeconds`). */
  refreshLockMs: number;
  /** The largest answer the engine takes (`engine.maxResponseBytes`): a large result of it is kept while Redis is away. */
  largestResultBytes?: number;
}

/** What replicas acknowledge a write by: the configured count, 1 by default with Sentinels. */
const durabilityOf = (store: StoreSettings): Durability => ({
  replicaAcks: store.replicaAcks ?? (store.sentinels?.length ? 1 : 0),
  timeoutMs: store.replicaAckTimeoutMs ?? 1000,
});

/**
 * Opens the shared store. Fails start-up rather than fall back: a replica with a store of its
 * own would hand out authorization links and refresh tokens that the others never see.
 */
export async function openSharedStore(options: SharedStoreOptions, host: HostParts): Promise<SharedStore> {
  const { url, settings: store = {}, secret: key } = options;
  const logger = host.logger;
  if (!key) {
    throw new SharedStoreStartError(
      'A shared store (TOOLHOST_REDIS_URL / store.redisUrl / store.cluster) is configured but TOOLHOST_TOKEN_KEY is not: tokens in Redis are always encrypted; set the same key (16+ characters) on every replica.',
    );
  }
  const redis = await connectRedis(url, logger, {
    connectTimeoutMs: store.connectTimeoutMs,
    commandTimeoutMs: store.commandTimeoutMs,
    keyPrefix: store.keyPrefix,
    sentinels: store.sentinels,
    sentinelName: store.sentinelName,
    cluster: store.cluster,
  });
  let channels: RedisChannels | undefined;
  try {
    const cipher = await SharedCipher.open(redis, host.Cipher, key, logger ? { logger } : {});
    channels = await RedisChannels.open(redis, logger);
    return await storeOn(redis, cipher, channels, options, host);
  } catch (e) {
    await channels?.close();
    redis.disconnect();
    throw e;
  }
}

/** The store's parts on an open connection, its cipher and its channels. */
async function storeOn(
  redis: SharedRedis,
  cipher: SharedCipher,
  channels: RedisChannels,
  options: SharedStoreOptions,
  host: HostParts,
): Promise<SharedStore> {
  const { url, settings: store = {} } = options;
  const logger = host.logger;
  const durability = durabilityOf(store);
  const signals = await RedisAuthorizationSignals.open(channels, new host.Waiters());
  const tokenStore = new RedisTokenStore(redis, cipher, channels, undefined, durability);
  await tokenStore.listenForChanges();
  const pacing = sharedPacers(redis, logger);
  const commandTimeoutMs = store.commandTimeoutMs ?? 5000;
  const probeMs = Math.min(commandTimeoutMs, 2000);
  const health = new StoreHealth(redis, redactRedisUrl(url), logger, probeMs, 1000, commandTimeoutMs);
  const results = new RedisResults(redis, cipher, logger, options.largestResultBytes);
  const signingKey = (purpose: string) => cipher.derive(purpose);
  return {
    redis,
    tokenStore,
    cipher,
    refreshLock: new RedisRefreshLock(redis, options.refreshLockMs),
    pacers: pacing.factory,
    degradedPacing: () =>
      Object.fromEntries([...pacing.made].map(([name, pacer]) => [name, pacer.degraded ? 1 : 0])),
    channels,
    flows: (providerId) => ({
      pending: new RedisPendingAuthorizations(redis, cipher, providerId, host.pendingBounds),
      signals,
    }),
    signingKey,
    writeRecords: new RedisRecords(redis, undefined, () => cipher.agree(), durability),
    places: new RedisPlaces(redis),
    results,
    replicas: {
      signingKey,
      reachable: () => health.up,
      sessions: (idleMs) => new RedisSessions(redis, channels, idleMs),
      results,
      redis: {
        // Redis away is store_unavailable, which the host answers 503 for the client to retry;
        // ioredis's own errors ("Command timed out") would be a 500.
        call: (command, ...args) => inRedis(() => redis.call(command, ...args)),
        callDurably: async (command, ...args) =>
          (await writeDurably(redis, (p) => p.call(command, ...args), durability))[0],
      },
    },
    reachable: () => health.up,
    async close() {
      health.stop();
      await channels.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
