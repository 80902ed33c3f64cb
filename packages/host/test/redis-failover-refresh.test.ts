import type { ToolOutcome } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { failoverHost } from './failover-scenario.js';
import { type FakeOAuthServer, startFakeOAuthServer, storeAuthorized } from './fake-oauth-server.js';
import { type MasterProxy, masterProxy } from './redis-master-proxy.js';
import {
  type RedisServer,
  replicating,
  type Sentinels,
  startRedisServer,
  startSentinels,
} from './redis-server.js';
import { tokenStoreOf } from './support.js';

// Two replicas of the host on a Sentinel deployment with one Redis replica. The refresh lock is
// not waited for by replicas: taken in the replication window, it dies with the master, and
// only the refresh-sent mark can then keep another host replica from sending the same refresh
// token. A vendor that rotates refresh tokens takes that second use for theft and revokes the
// grant.
let master: RedisServer;
let proxy: MasterProxy;
let replica: RedisServer;
let later: RedisServer | undefined;
let sentinels: Sentinels;
let upstream: RecordingUpstream;
let oauth: FakeOAuthServer;
let a: Host;
let b: Host;

beforeAll(async () => {
  master = await startRedisServer();
  proxy = await masterProxy(master.port);
  replica = await startRedisServer(['--replicaof', '127.0.0.1', String(proxy.port)]);
  await replicating(replica);
  sentinels = await startSentinels(proxy.port, 3);
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { id: 'i' } }));
  oauth = await startFakeOAuthServer();
  const store = {
    redisUrl: 'redis://unused.invalid:6379',
    sentinels: sentinels.nodes,
    replicaAckTimeoutMs: 2000,
  };
  [a, b] = await Promise.all([failoverHost(store, upstream, oauth), failoverHost(store, upstream, oauth)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await sentinels?.close();
  proxy?.close();
  await later?.close();
  await replica?.close();
  await master?.close();
  await oauth?.close();
  await upstream?.close();
});

const code = (o: ToolOutcome) => (o.ok ? undefined : o.error.code);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a refresh in the replication window, then a Sentinel failover', () => {
  it('never lets another host replica send the same refresh token', async () => {
    const stale = await storeAuthorized(oauth, tokenStoreOf(a), 'alice', Date.now() - 1000);
    proxy.hold();
    const inWindow = await a.callTool('EchoApi.GetItem', { item_id: 'i1' }, { userId: 'alice' });
    expect(code(inWindow) === undefined || code(inWindow) === 'store_unavailable').toBe(true);

    await master.kill();
    proxy.close();
    const deadline = Date.now() + 30_000;
    while ((await sentinels.masterPort()) === proxy.port) {
      if (Date.now() > deadline) throw new Error('no failover');
      await sleep(200);
    }
    const promoted = await sentinels.masterPort();
    // B reaches the promoted master (it has no replica yet), and calls for Alice there.
    await vi.waitFor(() => tokenStoreOf(b).get('echo-auth', 'alice'), { timeout: 30_000, interval: 200 });
    const onB = await b.callTool('EchoApi.GetItem', { item_id: 'i2' }, { userId: 'alice' });
    expect(oauth.reuses, JSON.stringify([inWindow, onB, oauth.grants])).toEqual([]);

    // Whole again: a replica copies the promoted master, and Alice's calls go on, on either
    // host replica, each refresh token sent once.
    later = await startRedisServer(['--replicaof', '127.0.0.1', String(promoted)]);
    await replicating(later, promoted);
    let after = await b.callTool('EchoApi.GetItem', { item_id: 'i3' }, { userId: 'alice' });
    while (code(after) !== undefined && Date.now() < deadline + 30_000) {
      await sleep(300);
      after = await b.callTool('EchoApi.GetItem', { item_id: 'i3' }, { userId: 'alice' });
    }
    expect(code(after), JSON.stringify([after, oauth.grants])).toBeUndefined();
    const sent = oauth.grants.map((g) => g.refresh_token);
    expect(sent[0]).toBe(stale.refreshToken);
    expect(new Set(sent).size).toBe(sent.length);
    expect(oauth.reuses).toEqual([]);
  }, 90_000);
});
