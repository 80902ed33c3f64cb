/**
 * The shared store of toolhost replicas in Redis. The host loads this package only when a
 * store is configured (TOOLHOST_REDIS_URL, `store.redisUrl`, `store.cluster`) and lends it what
 * it needs of its own (see HostParts); the ports are the interfaces both sides speak.
 */
export type {
  AuthorizationFlows,
  AuthorizationSignals,
  CipherClass,
  ExpiringRecords,
  FlowWaiters,
  HostParts,
  NewAuthorization,
  PendingAuthorization,
  PendingAuthorizationStore,
  PendingBounds,
  PerUserPlaces,
  RecordOwner,
  RefreshLock,
  RefreshLockRelease,
  ReplicaSessions,
  Replicas,
  Sealed,
  SessionRecord,
  SharedResults,
  StoredResult,
  StoreLogger,
  StoreSettings,
  ValueCipher,
} from './ports.js';
export { RedisChannels } from './redis-channels.js';
export { type SharedRedis, SharedStoreStartError, TokenStoreError } from './redis-client.js';
export { RedisPendingAuthorizations } from './redis-pending-authorizations.js';
export { DEFAULT_USER_RECORD_BYTES } from './redis-record-bytes.js';
export { RedisRecords } from './redis-records.js';
export { RedisResults } from './redis-results.js';
export { openSharedCipher, RedisTokenStore } from './redis-token-store.js';
export { describeSharedStore, redactRedisUrl } from './redis-url.js';
export { type SaltReport, saltReport } from './salt-report.js';
export type { SaltAgreement, SharedCipher } from './shared-cipher.js';
export { SharedPacer } from './shared-pacer.js';
export { openSharedStore, type SharedStore, type SharedStoreOptions } from './shared-store.js';
