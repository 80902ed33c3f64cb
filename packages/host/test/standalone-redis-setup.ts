import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { FakeOAuthServer } from './fake-oauth-server.js';
import { type RedisServer, type RedisWithAdmin, startRedisWithAdmin } from './redis-server.js';
import type { StoreUnderTest } from './replica-scenarios.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

// What the test files of replicas on one standalone Redis share (through shared-store-setup.ts
// and replicas-setup.ts): the Redis, an admin client, a fake vendor and upstream per file,
// emptied before each test. Each test file that calls useStandaloneRedis() (through
// useSharedStoreSuite() or useReplicaSuite()) gets its own.

export const TOKEN_KEY = 'token-encryption-key-for-replicas';

export let redis: RedisServer;
export let admin: Redis;
export let oauth: FakeOAuthServer;
export let upstream: RecordingUpstream;

/** This suite's store for the scenarios every deployment runs. */
export const suite = (): StoreUnderTest => ({
  upstream,
  oauth,
  tokenKey: TOKEN_KEY,
  env: { TOOLHOST_REDIS_URL: redis.url, TOOLHOST_TOKEN_KEY: TOKEN_KEY },
  admin,
  keys: (pattern) => admin.keys(pattern),
});

let store: RedisWithAdmin;
let vendor: VendorFakes;
/**
 * This file's Redis, admin client and fake vendor, emptied before each test.
 * Called at the top of each test file: a worker runs several files and imports this module once.
 */
export function useStandaloneRedis(): void {
  beforeAll(async () => {
    store = await startRedisWithAdmin();
    ({ redis, admin } = store);
    vendor = await startVendorFakes();
    ({ oauth, upstream } = vendor);
  });
  afterAll(async () => {
    await store.close();
    await vendor.close();
  });
  beforeEach(async () => {
    vendor.reset();
    await store.flush();
  });
}
