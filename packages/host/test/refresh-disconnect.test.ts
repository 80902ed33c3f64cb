import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredToken, TokenStore } from '@toolhost/core';
import { EncryptedFileTokenStore, MemoryTokenStore, TokenCipher } from '@toolhost/credentials';
import { RedisTokenStore } from '@toolhost/redis-store';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost } from '../src/host.js';
import { disconnect } from '../src/index.js';
import { echoAuthProviders, type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { capturedLogger, fixtureApp } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

// A person disconnects, or signs in again, while a refresh of their token is at the vendor. The
// vendor answers afterwards with a new token: writing it would connect them again, and the host
// would go on acting for them at the vendor after they were told it stopped, or undo their new
// sign-in.

let vendor: VendorFakes;
let oauth: FakeOAuthServer;
let upstream: RecordingUpstream;
let redis: RedisServer;
const clients: { quit(): Promise<unknown> }[] = [];
beforeAll(async () => {
  vendor = await startVendorFakes();
  ({ oauth, upstream } = vendor);
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) await closeClient(c as Parameters<typeof closeClient>[0]);
  await redis.close();
  await vendor.close();
});
beforeEach(() => vendor.reset());

const stores: [string, () => Promise<TokenStore>][] = [
  ['in memory', async () => new MemoryTokenStore()],
  [
    'in the encrypted file',
    async () =>
      EncryptedFileTokenStore.inDirectory(
        mkdtempSync(join(tmpdir(), 'toolhost-disconnect-')),
        'a-file-key-0123456',
      ),
  ],
  [
    'in Redis',
    async () => {
      const client = redisClient(redis.url);
      clients.push(client);
      return RedisTokenStore.open(client, TokenCipher, 'a-redis-key-0123456');
    },
  ],
];

/** A host whose vendor revokes grants (RFC 7009), on `store`, for a person who can sign in again. */
function revokingHost(store: TokenStore) {
  return createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      auth: {
        providers: echoAuthProviders(oauth, {
          revokeUrl: oauth.revokeUrl,
          redirectUri: 'http://127.0.0.1:9/oauth/callback',
        }),
      },
    },
    { configDir: fixtureApp, env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret }, tokenStore: store },
  );
}

/** Alice's call, whose refresh the vendor answers only once `meanwhile` ran; its outcome. */
async function duringRefresh(
  host: Awaited<ReturnType<typeof createHost>>,
  meanwhile: () => Promise<unknown>,
) {
  let answer!: () => void;
  oauth.afterRefreshing = () =>
    new Promise<void>((r) => {
      answer = r;
    });
  const call = host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' });
  await expect.poll(() => answer).toBeDefined();
  await meanwhile();
  answer();
  return call;
}

/** Alice's call, whose refresh the vendor answers only once she has disconnected; its outcome. */
const disconnectDuringRefresh = (host: Awaited<ReturnType<typeof createHost>>) =>
  duringRefresh(host, () => disconnect(host, 'alice', 'echo-auth'));

describe.each(stores)('a refresh answered after the person disconnected, tokens %s', (_, open) => {
  it('does not store the refreshed token: the person stays disconnected', async () => {
    const store = await open();
    const host = await revokingHost(store);
    try {
      await storeAuthorized(oauth, store, 'alice', Date.now() + 10_000); // due for a refresh
      expect(await disconnectDuringRefresh(host)).toMatchObject({
        ok: false,
        error: { code: 'authorization_required' },
      });
      expect(await store.get('echo-auth', 'alice')).toBeUndefined();
      // The disconnection revoked the refresh token sent; the one the vendor rotated it to is
      // revoked too, else the grant would live on at the vendor.
      const [sent, rotated] = oauth.revocations;
      expect(oauth.revocations).toHaveLength(2);
      expect(sent).toEqual({ token: oauth.grants[0]!.refresh_token, token_type_hint: 'refresh_token' });
      expect(rotated).toMatchObject({ token_type_hint: 'refresh_token' });
      expect(rotated!.token).not.toBe(sent!.token);
      expect(await host.callTool('EchoApi.GetItem', { item_id: '2' }, { userId: 'alice' })).toMatchObject({
        ok: false,
        error: { code: 'authorization_required' },
      });
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await host.close();
    }
  });
});

describe.each(stores)('a refresh answered after the person signed in again, tokens %s', (_, open) => {
  it('keeps the new sign-in, and the call acts with it', async () => {
    const store = await open();
    const host = await revokingHost(store);
    try {
      await storeAuthorized(oauth, store, 'alice', Date.now() + 10_000); // due for a refresh
      let signedIn: StoredToken | undefined;
      const outcome = await duringRefresh(host, async () => {
        signedIn = await storeAuthorized(oauth, store, 'alice', Date.now() + 3_600_000);
      });
      expect(outcome).toMatchObject({ ok: true });
      // Written over it, the refresh would have undone the sign-in: the person would be acting
      // with the grant they replaced, perhaps another vendor account.
      expect(await store.get('echo-auth', 'alice')).toEqual(signedIn);
      expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([
        `Bearer ${signedIn!.accessToken}`,
      ]);
      expect(oauth.grants.map((g) => g.grant_type)).toEqual(['refresh_token']);
      // Nothing of the new sign-in's grant is revoked (nor of the old, as a sign-in leaves it).
      expect(oauth.revocations).toEqual([]);
    } finally {
      await host.close();
    }
  });
});

describe('a refresh answered unusably, with a rotated refresh token, after the person disconnected', () => {
  it('does not keep that refresh token, and revokes it at the vendor', async () => {
    const store = new MemoryTokenStore();
    const host = await revokingHost(store);
    try {
      await storeAuthorized(oauth, store, 'alice', Date.now() + 10_000); // due for a refresh
      const issued: Record<string, unknown>[] = [];
      // Rotated, but no usable answer: the host would keep the new refresh token alone.
      oauth.rewriteRefresh = ({ access_token: _, ...rest }) => {
        issued.push(rest);
        return rest;
      };
      expect(await disconnectDuringRefresh(host)).toMatchObject({
        ok: false,
        error: { code: 'authorization_required' },
      });
      expect(await store.get('echo-auth', 'alice')).toBeUndefined();
      expect(oauth.revocations.map((r) => r.token)).toEqual([
        oauth.grants[0]!.refresh_token,
        issued[0]!.refresh_token,
      ]);
    } finally {
      await host.close();
    }
  });
});

/** A store that refuses the refreshed token (the person gone, or signed in again), then cannot be read. */
class UnreadableAfterRefusal extends MemoryTokenStore {
  refused = false;
  override async replace(providerId: string, userId: string, token: StoredToken, over?: StoredToken) {
    if (token.refreshSentAt !== undefined) return super.replace(providerId, userId, token, over);
    this.refused = true;
    return false;
  }
  override async get(providerId: string, userId: string): Promise<StoredToken | undefined> {
    if (this.refused) throw new Error('store away');
    return super.get(providerId, userId);
  }
}

describe('a refresh whose token the store refused, the store then unreadable', () => {
  it('revokes nothing and answers store_unavailable: disconnected or signed in again, unknown', async () => {
    const store = new UnreadableAfterRefusal();
    const host = await revokingHost(store);
    try {
      await storeAuthorized(oauth, store, 'alice', Date.now() + 10_000); // due for a refresh
      expect(await host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' })).toMatchObject({
        ok: false,
        error: { code: 'store_unavailable', retryable: true },
      });
      // Taken for a disconnection, the refreshed token was revoked: at some vendors the new
      // sign-in's grant with it.
      expect(oauth.revocations).toEqual([]);
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await host.close();
    }
  });
});

/** A store that takes the refresh-sent mark, then refuses every other write (Redis gone mid-refresh). */
class RefusingAfterMark extends MemoryTokenStore {
  override async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    if (token.refreshSentAt === undefined && (await this.get(providerId, userId)))
      throw new Error('store away');
    await super.set(providerId, userId, token);
  }
}

/** A store that takes the refresh-sent mark, and refuses other writes while `away` (Redis gone a while). */
class AwayAfterMark extends MemoryTokenStore {
  away = true;
  override async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    if (this.away && token.refreshSentAt === undefined && (await this.get(providerId, userId)))
      throw new Error('store away');
    await super.set(providerId, userId, token);
  }
}

describe('a rotated token the store took only after the person disconnected', () => {
  it('is not written, and is revoked at the vendor', async () => {
    const store = new AwayAfterMark();
    const host = await revokingHost(store);
    try {
      const old = await storeAuthorized(oauth, store, 'alice', Date.now() + 10_000); // due for a refresh
      // Served with the rotated token, kept in memory and written again until the store takes it.
      expect(await host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' })).toMatchObject({
        ok: true,
      });
      await disconnect(host, 'alice', 'echo-auth');
      store.away = false;
      await expect.poll(() => oauth.revocations.length, { timeout: 3000 }).toBe(2);
      const [held, rotated] = oauth.revocations;
      expect(held).toEqual({ token: old.refreshToken, token_type_hint: 'refresh_token' });
      expect(rotated).toMatchObject({ token_type_hint: 'refresh_token' });
      expect(rotated!.token).not.toBe(old.refreshToken);
      expect(await store.get('echo-auth', 'alice')).toBeUndefined();
    } finally {
      await host.close();
    }
  });
});

describe('a rotated token the store never took before the host stopped', () => {
  it('is reported to the operator as lost, the user to authorize again', async () => {
    const store = new RefusingAfterMark();
    const { logger, lines } = capturedLogger();
    const host = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: upstream.url } },
        auth: { providers: echoAuthProviders(oauth) },
      },
      {
        configDir: fixtureApp,
        env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret },
        tokenStore: store,
        logger,
      },
    );
    await storeAuthorized(oauth, store, 'alice', Date.now() + 10_000); // due for a refresh
    // The call is made with the rotated token, kept in memory and written again meanwhile.
    expect(await host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' })).toMatchObject({
      ok: true,
    });
    expect(oauth.grants.map((g) => g.grant_type)).toEqual(['refresh_token']);
    await host.close();
    expect(lines()).toContain('the host stopped before the token store took the token a refresh rotated');
  });
});
