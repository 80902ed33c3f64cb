import type { StoredToken, TokenStore } from '@toolhost/core';
import { OAuthAuthProvider, TokenCipher } from '@toolhost/credentials';
import { RedisTokenStore } from '@toolhost/redis-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRefreshLock } from '../../redis-store/src/refresh-lock.js';
import {
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
  storeAuthorized,
} from './fake-oauth-server.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';

// Two replicas on one Redis refresh a user's token. One stands still while it writes the mark of
// its refresh (a long pause), past the life of its refresh lock, which Redis then lets go: the
// other takes the lock, marks the token and sends its refresh token. Redis's lock cannot tell
// its holder it lost it, so only the mark's write can keep the first from sending the same
// refresh token when it resumes, which a vendor that rotates refresh tokens takes for theft.

const KEY = 'a-redis-key-0123456';
let redis: RedisServer;
let oauth: FakeOAuthServer;
const clients: ReturnType<typeof redisClient>[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
  oauth = await startFakeOAuthServer();
});
afterAll(async () => {
  for (const client of clients) await closeClient(client);
  await redis?.close();
  await oauth?.close();
});

/** A replica's connection to Redis, its token store and its refresh lock. */
async function replica() {
  const client = redisClient(redis.url);
  clients.push(client);
  return {
    client,
    store: await RedisTokenStore.open(client, TokenCipher, KEY),
    lock: new RedisRefreshLock(client),
  };
}

describe("a replica that stood still past its Redis refresh lock while writing its refresh's mark", () => {
  it("does not write its mark over the other replica's, nor send the refresh token again", async () => {
    const [a, b] = [await replica(), await replica()];
    await storeAuthorized(oauth, a.store, 'alice', Date.now() - 1000);
    const config = {
      id: 'echo-auth',
      clientId: fakeClient.clientId,
      clientSecret: fakeClient.clientSecret,
      authorizeUrl: oauth.authorizeUrl,
      tokenUrl: oauth.tokenUrl,
      redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth',
    };
    const request = { userId: 'alice', scopes: [] };
    const onB = new OAuthAuthProvider(config, b.store, Date.now, b.lock);
    let theirs: Promise<unknown> | undefined;
    let stood = false;
    // A's store, standing still in the write of the mark (its lock taken, the token read unmarked).
    const stalling: TokenStore = {
      get: (p, u) => a.store.get(p, u),
      set: (p, u, t) => a.store.set(p, u, t),
      delete: (p, u) => a.store.delete(p, u),
      replace: async (p: string, u: string, token: StoredToken, over?: StoredToken) => {
        if (token.refreshSentAt !== undefined && !stood) {
          stood = true;
          // Its lock's life passes, its renewals standing still with it: Redis lets the lock go.
          const locks = await a.client.keys('toolhost:refresh-lock:*');
          expect(locks).toHaveLength(1);
          await a.client.del(...locks);
          // B's refresh at the vendor, its answer not yet back: its mark is in Redis.
          let answer = () => {};
          oauth.afterRefreshing = () => new Promise<void>((resolve) => (answer = resolve));
          theirs = onB.getCredentials(request);
          await expect
            .poll(() => oauth.grants.filter((g) => g.grant_type === 'refresh_token').length)
            .toBe(1);
          oauth.afterRefreshing = undefined;
          try {
            return await a.store.replace!(p, u, token, over);
          } finally {
            answer();
          }
        }
        return a.store.replace!(p, u, token, over);
      },
    };
    const onA = new OAuthAuthProvider(config, stalling, Date.now, a.lock);
    const mine = await onA.getCredentials(request).catch((e: unknown) => e);
    const refreshed = await theirs?.catch((e: unknown) => e);
    expect(oauth.reuses).toEqual([]);
    expect(oauth.grants.filter((g) => g.grant_type === 'refresh_token')).toHaveLength(1);
    expect(refreshed).toMatchObject({ kind: 'bearer' });
    // A waited for B's token rather than refreshing.
    expect(mine).toEqual(refreshed);
    expect((await b.store.get('echo-auth', 'alice'))?.accessToken).toBe(
      (refreshed as { token: string }).token,
    );
    await Promise.all([onA.close(), onB.close()]);
  });
});
