import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import type { ToolOutcome } from '@toolhost/core';
import { afterEach, beforeEach } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import type { Host } from '../src/host.js';
import { createLogger } from '../src/logger.js';
import { fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { echoConfigOn, replicaOpener } from './replica-scenarios.js';
import {
  admin,
  oauth,
  redis,
  suite,
  TOKEN_KEY,
  upstream,
  useStandaloneRedis,
} from './standalone-redis-setup.js';
import { fixtureApp, tokenStoreOf } from './support.js';

// What the shared-store test files share: one Redis, a fake vendor and upstream per file,
// emptied before each test (standalone-redis-setup.ts), and in-process replicas closed after
// it. The suite is split in files so that they run side by side; each file that calls
// useSharedStoreSuite() gets its own.

export { admin, oauth, redis, suite, TOKEN_KEY, upstream };
export const repoRoot = resolve(fixtureApp, '../../../../..');

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

export const getItem = (host: Host, id: string) =>
  host.callTool('EchoApi.GetItem', { item_id: id }, { userId: 'alice' });
export const errorCode = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);

/** A token for alice as an authorization on some replica would have stored it. */
export const authorizeAlice = (host: Host, expiresAt = Date.now() + 3_600_000) =>
  storeAuthorized(oauth, tokenStoreOf(host), 'alice', expiresAt);

/**
 * This file's Redis and fake vendor, emptied before each test; its in-process replicas closed after it.
 * Called at the top of each test file: a worker runs several files and imports this module once.
 */
export function useSharedStoreSuite(): void {
  useStandaloneRedis();
  beforeEach(() => {
    logs = '';
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
}
