import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { echoOAuthConfig } from './support.js';

// The /connections sign-in cookie across replicas sharing Redis (each its own host and server): it ends with its user's
// access token (the operator removed it) and at sign-out, on every replica, for every copy.

const ALICE = 'alice-access-token-0123456789';
const BOB = 'bob-access-token-9876543210xx';
const TOKEN_KEY = 'connections-sign-in-test-key-0123456789';
let redis: RedisServer;
const hosts: ServedHttpHost[] = [];

const replica = async (accessTokens: string) => {
  const started = await serveHttpHost(echoOAuthConfig, {
    TOOLHOST_REDIS_URL: redis.url,
    TOOLHOST_TOKEN_KEY: TOKEN_KEY,
    TOOLHOST_ACCESS_TOKENS: accessTokens,
  });
  hosts.push(started);
  return new URL(started.url).origin;
};

async function signIn(origin: string, token: string): Promise<string> {
  const res = await fetch(`${origin}/connections/sign-in`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: `access_token=${token}`,
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** Whether the page, shown with `cookie`, is signed in (else it asks for the access token). */
async function signedIn(origin: string, cookie: string): Promise<boolean> {
  const res = await fetch(`${origin}/connections`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return !(await res.text()).includes('Sign in with your access token');
}

beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await redis.close();
});

describe('the /connections sign-in cookie', () => {
  it("stops working on a replica where the operator removed the user's token, and keeps working where it is", async () => {
    const [a, b] = await Promise.all([replica(`alice:${ALICE},bob:${BOB}`), replica(`bob:${BOB}`)]);
    const alice = await signIn(a, ALICE);
    const bob = await signIn(a, BOB);
    expect(await signedIn(a, alice)).toBe(true);
    // Replica B runs the operator's new config: Alice's token is gone; Bob's is as it was.
    expect(await signedIn(b, alice)).toBe(false);
    expect(await signedIn(b, bob)).toBe(true);
  }, 60_000);

  it('stops working at sign-out, for every copy of the cookie and on every replica', async () => {
    const [a, a2] = await Promise.all([replica(`alice:${ALICE}`), replica(`alice:${ALICE}`)]);
    const kept = await signIn(a, ALICE);
    const other = await signIn(a, ALICE);
    expect(await signedIn(a2, kept)).toBe(true);
    const out = await fetch(`${a}/connections/sign-out`, {
      method: 'POST',
      headers: { origin: a, cookie: kept },
      redirect: 'manual',
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    // A copy of the signed-out cookie (kept by whoever took it) is refused everywhere.
    expect(await signedIn(a, kept)).toBe(false);
    expect(await signedIn(a2, kept)).toBe(false);
    // Another sign-in of the same user stands.
    expect(await signedIn(a2, other)).toBe(true);
  }, 60_000);
});
