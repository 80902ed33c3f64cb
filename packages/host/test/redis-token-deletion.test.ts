import { ToolError } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { disconnect } from '../src/connections.js';
import type { Host } from '../src/host.js';
import { failoverHost } from './failover-scenario.js';
import { type FakeOAuthServer, startFakeOAuthServer, storeAuthorized } from './fake-oauth-server.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { tokenStoreOf } from './support.js';

// A user's disconnection waits for a replica as a rotated token does (store.replicaAcks): were
// the deletion on the master alone, a failover would bring the token back, and the host would
// act for someone who disconnected. A frozen replica (SIGSTOP) acknowledges nothing.
let master: RedisServer;
let replica: RedisServer;
let upstream: RecordingUpstream;
let oauth: FakeOAuthServer;
let host: Host;

beforeAll(async () => {
  master = await startRedisServer();
  replica = await startRedisServer(['--replicaof', '127.0.0.1', String(master.port)]);
  const watching = redisClient(replica.url);
  for (let i = 0; i < 100 && !(await watching.info('replication')).includes('master_link_status:up'); i += 1)
    await new Promise((r) => setTimeout(r, 100));
  await closeClient(watching);
  upstream = await startRecordingUpstream(() => ({ status: 200, body: {} }));
  oauth = await startFakeOAuthServer();
  host = await failoverHost(
    { redisUrl: master.url, replicaAcks: 1, replicaAckTimeoutMs: 300 },
    upstream,
    oauth,
  );
}, 60_000);

afterAll(async () => {
  replica?.resume();
  await host?.close();
  await replica?.close();
  await master?.close();
  await oauth?.close();
  await upstream?.close();
});

describe('a disconnection with store.replicaAcks', () => {
  it('is not reported done until a replica holds it; done once one does', async () => {
    const tokens = tokenStoreOf(host);
    await storeAuthorized(oauth, tokens, 'alice', Date.now() + 3_600_000);

    replica.pause();
    try {
      const refused = await disconnect(host, 'alice', 'echo-auth').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ToolError);
      expect((refused as ToolError).info).toMatchObject({
        code: 'store_unavailable',
        retryable: true,
        message: expect.stringContaining('replica'),
      });
    } finally {
      replica.resume();
    }

    await storeAuthorized(oauth, tokens, 'bob', Date.now() + 3_600_000);
    expect(await disconnect(host, 'bob', 'echo-auth')).toMatchObject({ existed: true });
    const onReplica = redisClient(replica.url);
    try {
      expect(await onReplica.exists('toolhost:token:echo-auth:bob')).toBe(0);
    } finally {
      await closeClient(onReplica);
    }
  }, 60_000);
});
