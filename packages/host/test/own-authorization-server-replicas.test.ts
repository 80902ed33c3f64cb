import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { ALICE_ACCESS_TOKEN as ALICE, type HttpHostProcess, spawnHttpHost } from './support.js';

// The host's own authorization server on two replicas sharing Redis, behind a balancer that
// sends each request where the test says: what one replica issues, the other honours, and a
// code or refresh token is spent once across the fleet.
let redis: RedisServer;
let balancer: Balancer;
let replicas: HttpHostProcess[] = [];
let origins: [string, string];
let target: string | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
  balancer = await startBalancer();
  balancer.pick = () => target;
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    http: { publicUrl: balancer.url, authorization: { mode: 'host' } },
  };
  const env = {
    TOOLHOST_REDIS_URL: redis.url,
    TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-replicas',
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
  };
  replicas = await Promise.all([spawnHttpHost(config, env), spawnHttpHost(config, env)]);
  origins = replicas.map((r) => new URL(r.url).origin) as [string, string];
  balancer.targets = [...origins];
});
afterAll(async () => {
  for (const r of replicas) r.child.kill('SIGTERM');
  await Promise.all(replicas.map((r) => r.exited));
  await balancer?.close();
  await redis?.close();
});

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

  it('a client registered on one, a sign-in and consent across both, a code redeemed once whichever replicas race for it', async () => {
    on(0);
    const clientId = await registerPublicClient(balancer.url);
    // Each step of the browser on the other replica than the one before.
    let step = 0;
    const { landed, verifier } = await consentWithAccessToken(balancer.url, clientId, ALICE, () =>
      on((step++ % 2) as 0 | 1),
    );
    balancer.pick = (req) => (req.headers['x-replica'] === '1' ? origins[1] : origins[0]);
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
    balancer.pick = () => target;
    expect(race.map((r) => r.status).sort()).toEqual([200, 400]);
    const won = race.find((r) => r.status === 200)!;
    const tokens = (await won.json()) as { access_token: string; refresh_token: string };
    expect(await race.find((r) => r.status === 400)!.json()).toMatchObject({ error: 'invalid_grant' });
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
  });

  it('a refresh token rotated on one replica and replayed on the other revokes the grant everywhere', async () => {
    on(1);
    const clientId = await registerPublicClient(balancer.url);
    const { landed, verifier } = await consentWithAccessToken(balancer.url, clientId, ALICE);
    on(0);
    const first = (await (await redeemCode(balancer.url, clientId, landed, verifier)).json()) as {
      refresh_token: string;
    };
    on(1);
    const rotated = await tokenRequest(balancer.url, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { refresh_token: string };
    on(0);
    const replay = await tokenRequest(balancer.url, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(replay.status).toBe(400);
    on(1);
    const afterReplay = await tokenRequest(balancer.url, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token,
      client_id: clientId,
    });
    expect(afterReplay.status).toBe(400);
  });
});
