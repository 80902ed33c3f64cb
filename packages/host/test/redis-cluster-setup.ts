import type { ToolOutcome } from '@toolhost/core';
import type { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import { SHARED_STORE } from '../src/assemble-host.js';
import type { HostConfig } from '../src/config/host-config.js';
import { containerOf, type Host } from '../src/host.js';
import { resolveService } from '../src/services.js';
import { type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { type ClusterWithAdmin, type RedisCluster, startClusterWithAdmin } from './redis-server.js';
import { echoConfigOn, replicaOpener, type StoreUnderTest } from './replica-scenarios.js';
import { tokenStoreOf } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

// What the Redis Cluster test files share: a real three-master cluster, a fake vendor and an
// upstream per file, emptied before each test, and in-process replicas closed after it. The
// suite is split in files so that they run side by side; each file that calls useClusterSuite()
// gets its own.
export const TOKEN_KEY = 'token-encryption-key-for-the-cluster';

export let cluster: RedisCluster;
export let admin: Cluster;
export let oauth: FakeOAuthServer;
export let upstream: RecordingUpstream;
export const hosts: Host[] = [];

export const storeSection = () => ({ cluster: cluster.seeds });

export const echoConfig = (extra: Partial<HostConfig> = {}): HostConfig => echoConfigOn(suite(), extra);

export function replicaEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    // Credentials and TLS only: the nodes come from store.cluster.
    TOOLHOST_REDIS_URL: 'redis://127.0.0.1:1',
    TOOLHOST_TOKEN_KEY: TOKEN_KEY,
    ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
    ECHO_KEY: 'echo-static-key-for-the-cluster',
    ...extra,
  };
}

export const replica = replicaOpener(hosts, { config: echoConfig, env: () => replicaEnv() });

/** This suite's store for the scenarios every deployment runs. */
export const suite = (): StoreUnderTest => ({
  upstream,
  oauth,
  tokenKey: TOKEN_KEY,
  env: replicaEnv(),
  store: storeSection(),
  admin,
  keys: async (pattern) => (await keysPerMaster(pattern)).flat(),
});

export const sharedOf = (host: Host) => resolveService(containerOf(host), SHARED_STORE)!;
export const getItem = (host: Host, id: string, userId = 'alice') =>
  host.callTool('EchoApi.GetItem', { item_id: id }, { userId });
export const errorCode = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

/** Keys matching `pattern` on each master, in the order of `admin.nodes('master')`. */
export const keysPerMaster = (pattern: string) =>
  Promise.all(admin.nodes('master').map((n) => n.keys(pattern)));

/** A token for `userId` as an authorization on some replica would have stored it. */
export const authorize = (host: Host, userId: string, expiresAt = Date.now() + 3_600_000) =>
  storeAuthorized(oauth, tokenStoreOf(host), userId, expiresAt);

let store: ClusterWithAdmin | undefined;
let vendor: VendorFakes | undefined;
/**
 * This file's Redis Cluster and fake vendor, emptied before each test; its in-process replicas closed after it.
 * Called at the top of each test file: a worker runs several files and imports this module once.
 */
export function useClusterSuite(): void {
  beforeAll(async () => {
    store = await startClusterWithAdmin(3);
    ({ cluster, admin } = store);
    vendor = await startVendorFakes();
    ({ oauth, upstream } = vendor);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await vendor?.close();
  });
  beforeEach(async () => {
    vendor!.reset();
    await store!.flush();
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
}
