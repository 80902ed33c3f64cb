import { createHash } from 'node:crypto';
import { ToolError } from '@toolhost/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { disconnect } from '../src/connections.js';
import type { Host } from '../src/host.js';
import { failoverHost } from './failover-scenario.js';
import { type FakeOAuthServer, startFakeOAuthServer, storeAuthorized } from './fake-oauth-server.js';
import {
  consentWithAccessToken,
  redeemCode,
  registerPublicClient,
  tokenRequest,
} from './own-authorization-flow.js';
import {
  closeClient,
  type RedisServer,
  redisClient,
  startRedisServer,
  startReplica,
} from './redis-server.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE, tokenStoreOf } from './support.js';

// What is not answered done until a replica holds it (store.replicaAcks 1), beside the rotated
// tokens and write records the failover tests cover: undone by a failover in the replication
// window, each would have the host act again for someone who ended it. A master with one
// replica; the replica frozen (SIGSTOP) acknowledges nothing.
let master: RedisServer;
let replica: RedisServer;
// The default ack timeout: a loaded machine's healthy replica has taken over 300 ms.
const ACKS = { replicaAcks: 1, replicaAckTimeoutMs: 1000 };

beforeAll(async () => {
  master = await startRedisServer();
  replica = await startReplica(master);
}, 60_000);

afterAll(async () => {
  replica?.resume();
  await replica?.close();
  await master?.close();
});

/** What `act` answers while the replica is frozen; back once the replica holds all it missed. */
async function whileFrozen<T>(act: () => Promise<T>): Promise<T> {
  replica.pause();
  try {
    return await act();
  } finally {
    replica.resume();
    await withClient(master, async (admin) => {
      await admin.set('replica-acks-test:caught-up', String(Date.now()));
      await admin.wait(1, 30_000);
    });
  }
}

/** What `command` answers on a client of its own to `server`, closed after. */
async function withClient<T>(server: RedisServer, command: (r: Redis) => Promise<T>): Promise<T> {
  const client = redisClient(server.url);
  try {
    return await command(client);
  } finally {
    await closeClient(client);
  }
}

describe('a disconnection with store.replicaAcks', () => {
  let upstream: RecordingUpstream;
  let oauth: FakeOAuthServer;
  let host: Host;
  beforeAll(async () => {
    upstream = await startRecordingUpstream(() => ({ status: 200, body: {} }));
    oauth = await startFakeOAuthServer();
    host = await failoverHost({ redisUrl: master.url, ...ACKS }, upstream, oauth);
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await oauth?.close();
    await upstream?.close();
  });

  it('is not reported done until a replica holds it; done once one does', async () => {
    const tokens = tokenStoreOf(host);
    await storeAuthorized(oauth, tokens, 'alice', Date.now() + 3_600_000);
    const refused = await whileFrozen(() => disconnect(host, 'alice', 'echo-auth').catch((e: unknown) => e));
    expect(refused).toBeInstanceOf(ToolError);
    expect((refused as ToolError).info).toMatchObject({
      code: 'store_unavailable',
      retryable: true,
      message: expect.stringContaining('replica'),
    });

    await storeAuthorized(oauth, tokens, 'bob', Date.now() + 3_600_000);
    expect(await disconnect(host, 'bob', 'echo-auth')).toMatchObject({ existed: true });
    // The replica is what a failover would promote.
    expect(await withClient(replica, (r) => r.exists('toolhost:token:echo-auth:bob'))).toBe(0);
  }, 60_000);
});

describe("the host's own authorization server with store.replicaAcks", () => {
  let host: ServedHttpHost;
  let origin: string;
  beforeAll(async () => {
    const config: HostConfig = {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
      http: { authorization: { mode: 'host' } },
      store: ACKS,
    };
    host = await serveHttpHost(config, {
      ECHO_AUTH_TOKEN: 'static-token-x',
      TOOLHOST_REDIS_URL: master.url,
      TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-revocation-acks',
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
    });
    origin = new URL(host.url).origin;
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  const revoke = (token: string, clientId: string) =>
    fetch(`${origin}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: clientId }).toString(),
    });

  it('answers a revocation only once a replica holds it, and refuses the grant from then on', async () => {
    const clientId = await registerPublicClient(origin);
    const { landed, verifier } = await consentWithAccessToken(origin, clientId, ALICE);
    const issued = await redeemCode(origin, clientId, landed, verifier);
    expect(issued.status).toBe(200);
    const { refresh_token } = (await issued.json()) as { refresh_token: string };

    const refused = await whileFrozen(async () => {
      const res = await revoke(refresh_token, clientId);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    });
    expect(refused).toMatchObject({
      status: 503,
      retryAfter: '1',
      body: { error: 'temporarily_unavailable', error_description: expect.stringContaining('replica') },
    });

    expect((await revoke(refresh_token, clientId)).status).toBe(200);
    expect(await withClient(replica, (r) => r.keys('toolhost:as:revoked:*'))).toHaveLength(1);
    const refreshed = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
  }, 60_000);

  const unavailable = async (res: Response) => ({
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: await res.json(),
  });
  const UNAVAILABLE = {
    status: 503,
    retryAfter: '1',
    body: { error: 'temporarily_unavailable', error_description: expect.stringContaining('replica') },
  };

  it('hands out a registration, a code or a refresh token only once a replica holds it; the retry then works', async () => {
    const clients = () => withClient(master, (r) => r.keys('toolhost:as:client:*'));
    const before = await clients();
    const registered = await whileFrozen(() =>
      fetch(`${origin}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:9/callback'],
          token_endpoint_auth_method: 'none',
        }),
      }).then(unavailable),
    );
    expect(registered).toMatchObject(UNAVAILABLE);
    // A client that never learnt its id is not kept.
    expect(await clients()).toEqual(before);

    const clientId = await registerPublicClient(origin);
    const { landed, verifier } = await consentWithAccessToken(origin, clientId, ALICE);
    expect(
      await whileFrozen(() => redeemCode(origin, clientId, landed, verifier).then(unavailable)),
    ).toMatchObject(UNAVAILABLE);
    // The code was put back: the client's retry is no replay.
    const issued = await redeemCode(origin, clientId, landed, verifier);
    expect(issued.status).toBe(200);
    const { refresh_token } = (await issued.json()) as { refresh_token: string };

    const refresh = () =>
      tokenRequest(origin, { grant_type: 'refresh_token', refresh_token, client_id: clientId });
    expect(await whileFrozen(() => refresh().then(unavailable))).toMatchObject(UNAVAILABLE);
    const refreshed = await refresh();
    expect(refreshed.status).toBe(200);
    const next = ((await refreshed.json()) as { refresh_token: string }).refresh_token;
    // What a failover would promote holds the refresh token the client now has: its grant names it.
    const grant = await withClient(replica, (r) => r.get(`toolhost:as:grant:${next.split('.')[0]}`));
    expect(JSON.parse(grant!)).toMatchObject({
      refreshHash: createHash('sha256').update(next).digest('base64url'),
    });
    const again = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: next,
      client_id: clientId,
    });
    expect(again.status).toBe(200);
  }, 60_000);
});
