import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import {
  consentWithAccessToken,
  redeemCode,
  registerPublicClient,
  tokenRequest,
} from './own-authorization-flow.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

// The host's own authorization server with its state in Redis and store.replicaAcks 1: a
// revocation held by the master alone would be undone by a failover in the replication window,
// the grant alive again for whoever holds its tokens. So it is not answered done until a replica
// holds its mark; a frozen replica (SIGSTOP) acknowledges nothing.
let master: RedisServer;
let replica: RedisServer;
let host: ServedHttpHost;
let origin: string;

beforeAll(async () => {
  master = await startRedisServer();
  replica = await startRedisServer(['--replicaof', '127.0.0.1', String(master.port)]);
  const watching = redisClient(replica.url);
  for (let i = 0; i < 100 && !(await watching.info('replication')).includes('master_link_status:up'); i += 1)
    await new Promise((r) => setTimeout(r, 100));
  await closeClient(watching);
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
    http: { authorization: { mode: 'host' } },
    store: { replicaAcks: 1, replicaAckTimeoutMs: 300 },
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
  replica?.resume();
  await host?.close();
  await replica?.close();
  await master?.close();
});

const revoke = (token: string, clientId: string) =>
  fetch(`${origin}/auth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId }).toString(),
  });

describe("the host's own authorization server with store.replicaAcks", () => {
  it('answers a revocation only once a replica holds it, and refuses the grant from then on', async () => {
    const clientId = await registerPublicClient(origin);
    const { landed, verifier } = await consentWithAccessToken(origin, clientId, ALICE);
    const issued = await redeemCode(origin, clientId, landed, verifier);
    expect(issued.status).toBe(200);
    const { refresh_token } = (await issued.json()) as { refresh_token: string };

    replica.pause();
    try {
      const refused = await revoke(refresh_token, clientId);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({
        error: 'temporarily_unavailable',
        error_description: expect.stringContaining('replica'),
      });
    } finally {
      replica.resume();
    }

    expect((await revoke(refresh_token, clientId)).status).toBe(200);
    // Held by the replica when answered: what a failover would promote.
    const onReplica = redisClient(replica.url);
    try {
      expect(await onReplica.keys('toolhost:as:revoked:*')).toHaveLength(1);
    } finally {
      await closeClient(onReplica);
    }
    const refreshed = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
  }, 60_000);
});
