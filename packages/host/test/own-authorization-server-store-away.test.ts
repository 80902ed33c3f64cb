import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import {
  consentWithAccessToken,
  redeemCode,
  registerPublicClient,
  tokenRequest,
} from './own-authorization-flow.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

// The host's own authorization server while its Redis does not answer (frozen: connected,
// answering nothing). A client reading `invalid_client` drops its registration and tokens (the
// MCP SDKs do), so its person signs in again after a blip of the store; `temporarily_unavailable`
// has it try again.
let redis: RedisServer;
let host: ServedHttpHost;
let origin: string;

beforeAll(async () => {
  redis = await startRedisServer();
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
    store: { redisUrl: redis.url, commandTimeoutMs: 500 },
    http: { authorization: { mode: 'host' } },
  };
  host = await serveHttpHost(config, {
    ECHO_AUTH_TOKEN: 'static-token-x',
    TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-store-away',
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
  });
  origin = new URL(host.url).origin;
}, 60_000);
afterAll(async () => {
  redis?.resume();
  await host?.close();
  await redis?.close();
});

async function whileFrozen<T>(act: () => Promise<T>): Promise<T> {
  redis.pause();
  try {
    return await act();
  } finally {
    redis.resume();
  }
}

describe("the host's own authorization server with its store away", () => {
  it('answers a refresh or revocation 503 temporarily_unavailable, never invalid_client, and the client goes on after', async () => {
    const clientId = await registerPublicClient(origin);
    const { landed, verifier } = await consentWithAccessToken(origin, clientId, ALICE);
    const issued = await redeemCode(origin, clientId, landed, verifier);
    expect(issued.status).toBe(200);
    const { refresh_token } = (await issued.json()) as { refresh_token: string };
    const refresh = () =>
      tokenRequest(origin, { grant_type: 'refresh_token', refresh_token, client_id: clientId });

    const answers = await whileFrozen(async () => {
      const refreshed = await refresh();
      const revoked = await fetch(`${origin}/auth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refresh_token, client_id: clientId }).toString(),
      });
      return Promise.all(
        [refreshed, revoked].map(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: await r.json(),
        })),
      );
    });
    for (const answer of answers)
      expect(answer).toMatchObject({
        status: 503,
        retryAfter: '1',
        body: { error: 'temporarily_unavailable' },
      });

    // Nothing was spent: the same refresh token works once the store answers again.
    const after = await refresh();
    expect(after.status).toBe(200);
  }, 60_000);
});
