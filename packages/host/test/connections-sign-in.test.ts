import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { echoOAuthConfig } from './support.js';

// The /connections sign-in cookie across replicas sharing Redis (each its own host and server): it ends with its user's
// access token (the operator removed it) and at sign-out, on every replica, for every copy.

const ALICE = 'alice-access-token-0123456789';
const BOB = 'bob-access-token-9876543210xx';
const CAROL = 'carol-access-token-0123456789';
const DAVE = 'dave-access-token-01234567890';
const TOKEN_KEY = 'connections-sign-in-test-key-0123456789';
let redis: RedisServer;
const hosts: ServedHttpHost[] = [];

const replica = async (accessTokens: string, shared = true) => {
  const started = await serveHttpHost(echoOAuthConfig, {
    ...(shared ? { TOOLHOST_REDIS_URL: redis.url } : {}),
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

async function signOut(origin: string, cookie: string): Promise<void> {
  const out = await fetch(`${origin}/connections/sign-out`, {
    method: 'POST',
    headers: { origin, cookie },
    redirect: 'manual',
  });
  expect(out.status).toBe(303);
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

  // Each sign-out was kept by the cookie's id for its hour: a user signing in and out in a loop
  // grew the records (here, in Redis) by one a loop, with nothing to bound them but request speed.
  it.each([
    ['in Redis', true],
    ['in one process', false],
  ])(
    'keeps a bounded number of sign-outs per user %s, past it ending all their cookies issued until then',
    async (_, shared) => {
      const origin = await replica(`alice:${ALICE},bob:${BOB}`, shared);
      const client = redisClient(redis.url);
      const recorded = async () => (await client.keys('*connections-signed-out*')).length;
      const before = await recorded();
      const older = await signIn(origin, ALICE);
      const bob = await signIn(origin, BOB);
      for (let i = 0; i < 80; i += 1) await signOut(origin, await signIn(origin, ALICE));
      // At most 64 sign-outs by their id, and one record ending the rest.
      if (shared) expect((await recorded()) - before).toBeLessThanOrEqual(65);
      await closeClient(client);
      // Past her share, Alice's sign-outs ended her older cookie too; Bob's stands.
      expect(await signedIn(origin, older)).toBe(false);
      expect(await signedIn(origin, bob)).toBe(true);
      // A sign-in after them (a later second than the last one ended) works.
      await new Promise((r) => setTimeout(r, 1_100));
      expect(await signedIn(origin, await signIn(origin, ALICE))).toBe(true);
    },
    60_000,
  );

  // A version before reads sign-outs by their id alone: in a rolling upgrade, a cookie signed out
  // past the 16 kept so stayed signed in on its replicas. Now the first 64 of an hour are kept so.
  it('keeps the first 64 sign-outs of a user in an hour by their id, which a version before reads', async () => {
    const origin = await replica(`carol:${CAROL}`);
    const client = redisClient(redis.url);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 64; i += 1) {
        const cookie = await signIn(origin, CAROL);
        ids.push(cookie.split('.')[2]!);
        await signOut(origin, cookie);
      }
      for (const id of ids) expect(await client.keys(`*connections-signed-out:${id}`), id).toHaveLength(1);
      expect(await client.keys('*connections-signed-out-until:carol')).toHaveLength(0);
    } finally {
      await closeClient(client);
    }
  }, 60_000);

  // Past the share, the record ending the rest named the signed-out cookie's own expiry, and
  // lived only that long: a cookie issued after it (another browser) was not ended at all.
  it.each([
    ['in Redis', true],
    ['in one process', false],
  ])(
    'past the share, ends every cookie of the user issued until then, for as long as any could be used (%s)',
    async (_, shared) => {
      const user = shared ? 'dave' : 'erin';
      const origin = await replica(`${user}:${DAVE}`, shared);
      const older = await Promise.all(Array.from({ length: 65 }, () => signIn(origin, DAVE)));
      await new Promise((r) => setTimeout(r, 1_100));
      const newer = await signIn(origin, DAVE);
      expect(await signedIn(origin, newer)).toBe(true);
      for (const cookie of older) await signOut(origin, cookie);
      // The 65th sign-out, of a cookie a second older than this one, ends this one too.
      expect(await signedIn(origin, newer)).toBe(false);
      if (!shared) return;
      const client = redisClient(redis.url);
      try {
        const [key] = await client.keys(`*connections-signed-out-until:${user}`);
        const lives = Number(await client.pttl(key!));
        const newerExpires = Number(newer.split('.')[1]) * 1000;
        expect(Date.now() + lives).toBeGreaterThanOrEqual(newerExpires);
      } finally {
        await closeClient(client);
      }
    },
    60_000,
  );
});
