import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { type Balancer, startBalancer } from './balancer.js';
import {
  consentWithAccessToken,
  redeemCode,
  registerPublicClient,
  TEST_REDIRECT,
  tokenRequest,
} from './own-authorization-flow.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

// The host's own authorization server on two replicas sharing Redis, behind a balancer that
// sends each request where the test says: what one replica issues, the other honours, and a
// code or refresh token is spent once across the fleet.
let redis: RedisServer;
let balancer: Balancer;
let replicas: ServedHttpHost[] = [];
let origins: [string, string];
let target: string | undefined;
let upstream: RecordingUpstream;

beforeAll(async () => {
  redis = await startRedisServer();
  balancer = await startBalancer();
  balancer.pick = () => target;
  upstream = await startRecordingUpstream();
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    http: { publicUrl: balancer.url, authorization: { mode: 'host' } },
  };
  const env = {
    ECHO_AUTH_TOKEN: 'static-token-x',
    TOOLHOST_REDIS_URL: redis.url,
    TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-replicas',
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
  };
  replicas = await Promise.all([serveHttpHost(config, env), serveHttpHost(config, env)]);
  origins = replicas.map((r) => new URL(r.url).origin) as [string, string];
  balancer.targets = [...origins];
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await balancer?.close();
  await redis?.close();
  await upstream?.close();
});

/** A tool call over MCP through the balancer to the replica the test names, with a bearer token. */
async function callTool(replica: 0 | 1, accessToken: string, id: string): Promise<void> {
  on(replica);
  const client = new Client({ name: 'replica-test', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    upstream.reset();
    const result = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.path)).toEqual([`/items/${id}`]);
  } finally {
    await client.close();
  }
}

const on = (replica: 0 | 1) => {
  target = origins[replica];
};

describe("the host's own authorization server on two replicas", () => {
  it('serves one issuer and one key set from both', async () => {
    const answers = [];
    for (const replica of [0, 1] as const) {
      on(replica);
      answers.push(await (await fetch(`${balancer.url}/.well-known/oauth-authorization-server`)).json());
    }
    expect(answers[0]).toEqual(answers[1]);
    expect((answers[0] as { issuer: string }).issuer).toBe(balancer.url);
    const keys = [];
    for (const replica of [0, 1] as const) {
      on(replica);
      keys.push(await (await fetch(`${balancer.url}/auth/jwks`)).json());
    }
    expect(keys[0]).toEqual(keys[1]);
  });

  it('a client registered on one, sign-in and consent across both, the code redeemed on the other once, its token honoured by both', async () => {
    on(0);
    const clientId = await registerPublicClient(balancer.url);
    // Each step of the browser on the other replica than the one before; consent (the code) on A.
    let step = 0;
    const { landed, verifier } = await consentWithAccessToken(balancer.url, clientId, ALICE, () =>
      on((step++ % 2) as 0 | 1),
    );
    on(1);
    const redeemed = await redeemCode(balancer.url, clientId, landed, verifier);
    expect(redeemed.status).toBe(200);
    const tokens = (await redeemed.json()) as { access_token: string };
    // The token verifies with the key set either replica publishes.
    for (const replica of [0, 1] as const) {
      on(replica);
      const jwks = (await (await fetch(`${balancer.url}/auth/jwks`)).json()) as JSONWebKeySet;
      const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
        issuer: balancer.url,
        audience: `${balancer.url}/mcp`,
      });
      expect(payload.sub).toBe('alice');
    }
    // And the MCP endpoint of each replica honours it.
    await callTool(0, tokens.access_token, 'on-a');
    await callTool(1, tokens.access_token, 'on-b');
    // Once: the code presented again, on the replica that issued it, is refused.
    on(0);
    const again = await redeemCode(balancer.url, clientId, landed, verifier);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a code raced on both replicas at once is redeemed by one of them only', async () => {
    on(1);
    const clientId = await registerPublicClient(balancer.url);
    const { landed, verifier } = await consentWithAccessToken(balancer.url, clientId, ALICE);
    balancer.pick = (req) => (req.headers['x-replica'] === '1' ? origins[1] : origins[0]);
    try {
      const race = await Promise.all(
        ([0, 1] as const).map((replica) =>
          fetch(`${balancer.url}/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-replica': String(replica) },
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code: landed.searchParams.get('code')!,
              code_verifier: verifier,
              client_id: clientId,
              redirect_uri: TEST_REDIRECT,
            }).toString(),
          }),
        ),
      );
      expect(race.map((r) => r.status).sort()).toEqual([200, 400]);
    } finally {
      balancer.pick = () => target;
    }
  });

  it('a refresh token rotated on one replica and replayed on the other revokes the grant everywhere', async () => {
    on(1);
    const clientId = await registerPublicClient(balancer.url);
    const { landed, verifier } = await consentWithAccessToken(balancer.url, clientId, ALICE);
    on(0);
    const first = (await (await redeemCode(balancer.url, clientId, landed, verifier)).json()) as {
      refresh_token: string;
    };
    const refresh = (refreshToken: string) =>
      tokenRequest(balancer.url, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
      });
    on(1);
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { refresh_token: string };
    on(0);
    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(400);
    on(1);
    const afterReplay = await refresh(second.refresh_token);
    expect(afterReplay.status).toBe(400);
  });
});
