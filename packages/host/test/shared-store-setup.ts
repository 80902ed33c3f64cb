import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import type { ToolOutcome } from '@toolhost/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import type { Host } from '../src/host.js';
import { createLogger } from '../src/logger.js';
import { type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { type RedisServer, type RedisWithAdmin, startRedisWithAdmin } from './redis-server.js';
import { echoConfigOn, replicaOpener, type StoreUnderTest, standaloneStore } from './replica-scenarios.js';
import { fixtureApp, tokenStoreOf } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

// What the shared-store test files share: one Redis, a fake vendor and upstream per file,
// emptied before each test, and in-process replicas closed after it. The suite is split in
// files so that they run side by side; each file that imports this gets its own.

export const TOKEN_KEY = 'token-encryption-key-for-replicas';
export const repoRoot = resolve(fixtureApp, '../../../../..');

export let redis: RedisServer;
export let admin: Redis;
export let oauth: FakeOAuthServer;
export let upstream: RecordingUpstream;
/** What this test's replicas logged. */
export let logs: string;
/** The replicas this test started, closed after it. */
export const hosts: Host[] = [];

/** A logger that writes into `logs`. */
export const testLogger = () =>
  createLogger(
    'debug',
    new Writable({
      write(chunk, _enc, done) {
        logs += chunk.toString();
        done();
      },
    }),
  );

/** The echo tool set on this suite's Redis; `tokenUrl` another token endpoint than the vendor's. */
export const echoConfig = (tokenUrl = oauth.tokenUrl): HostConfig => echoConfigOn(suite(), {}, { tokenUrl });

export function replicaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    TOOLHOST_REDIS_URL: redis.url,
    TOOLHOST_TOKEN_KEY: TOKEN_KEY,
    ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
    ...extra,
  };
}

/** A replica of this suite (its config and environment unless others are given), logging into `logs`. */
export const replica = replicaOpener(hosts, {
  config: echoConfig,
  env: () => replicaEnv(),
  logger: testLogger,
});

/** This suite's store for the scenarios every deployment runs. */
export const suite = (): StoreUnderTest => standaloneStore(vendor, store, TOKEN_KEY);

export const getItem = (host: Host, id: string) =>
  host.callTool('EchoApi.GetItem', { item_id: id }, { userId: 'alice' });
export const errorCode = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

/** A token for alice as an authorization on some replica would have stored it. */
export const authorizeAlice = (host: Host, expiresAt = Date.now() + 3_600_000) =>
  storeAuthorized(oauth, tokenStoreOf(host), 'alice', expiresAt);

let store: RedisWithAdmin;
let vendor: VendorFakes;
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
  logs = '';
  vendor.reset();
  await store.flush();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});
