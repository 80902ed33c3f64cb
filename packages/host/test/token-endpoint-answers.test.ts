import { mkdtempSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredToken, TokenStore } from '@toolhost/core';
import { EncryptedFileTokenStore, MemoryTokenStore } from '@toolhost/credentials';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHost } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import type { Logger } from '../src/logger.js';
import { Browser, startFlow } from './browser.js';
import { echoAuthProviders, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { capturedLogger, fixtureApp } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

let vendor: VendorFakes;
beforeAll(async () => {
  vendor = await startVendorFakes();
});
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

function echoHost(tokenStore: TokenStore, tokenUrl = vendor.oauth.tokenUrl, logger?: Logger) {
  return createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: vendor.upstream.url } },
      auth: { providers: echoAuthProviders(vendor.oauth, { tokenUrl }) },
    },
    {
      configDir: fixtureApp,
      env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret },
      tokenStore,
      ...(logger ? { logger } : {}),
    },
  );
}

const refreshes = () => vendor.oauth.grants.filter((g) => g.grant_type === 'refresh_token').length;

describe('a token endpoint that answers a refresh with an expiry no date can hold', () => {
  // Vendors whose tokens never expire have been seen to say so with an expires_in of some
  // three hundred thousand years, or with the largest number their encoder writes.
  for (const expiresIn of [1e13, 1e306]) {
    it(`keeps the connection listed, as one that does not expire (expires_in ${expiresIn})`, async () => {
      const store = new MemoryTokenStore();
      const host = await echoHost(store);
      const server = await serveHttp(host, { port: 0 });
      try {
        await storeAuthorized(vendor.oauth, store, host.config.defaultUserId, Date.now() - 1000);
        vendor.oauth.expiresIn = expiresIn;
        expect(await host.callTool('EchoApi.GetItem', { item_id: '1' })).toMatchObject({ ok: true });
        expect(refreshes()).toBe(1);
        const page = await fetch(`${new URL(server.url).origin}/connections`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('does not expire');
      } finally {
        await server.close();
        await host.close();
      }
    });
  }

  it('lists a token stored with such an expiry before it was taken for none', async () => {
    const store = new MemoryTokenStore();
    const host = await echoHost(store);
    const server = await serveHttp(host, { port: 0 });
    try {
      const token = await storeAuthorized(vendor.oauth, store, host.config.defaultUserId, 1e16);
      await store.set('echo-auth', 'another-user', { ...token, expiresAt: Number.POSITIVE_INFINITY });
      const page = await fetch(`${new URL(server.url).origin}/connections`);
      expect(page.status).toBe(200);
      expect((await page.text()).match(/does not expire/g)).toHaveLength(2);
    } finally {
      await server.close();
      await host.close();
    }
  });

  it('does not refresh at every call once the token file is read again (expires_in 1e306)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-expiry-'));
    const key = 'token-key-for-the-expiry-test';
    const first = await echoHost(EncryptedFileTokenStore.inDirectory(dataDir, key));
    try {
      const store = EncryptedFileTokenStore.inDirectory(dataDir, key);
      await storeAuthorized(vendor.oauth, store, first.config.defaultUserId, Date.now() - 1000);
      await store.flush();
      vendor.oauth.expiresIn = 1e306;
      expect(await first.callTool('EchoApi.GetItem', { item_id: '1' })).toMatchObject({ ok: true });
    } finally {
      await first.close();
    }
    const restarted = await echoHost(EncryptedFileTokenStore.inDirectory(dataDir, key));
    try {
      for (const id of ['2', '3'])
        expect(await restarted.callTool('EchoApi.GetItem', { item_id: id })).toMatchObject({ ok: true });
      expect(refreshes()).toBe(1);
    } finally {
      await restarted.close();
    }
  });
});

/** A loopback token endpoint answering each request (its form read) as `answer` does. */
async function startTokenEndpoint(answer: (form: URLSearchParams, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on('end', () => answer(new URLSearchParams(text), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, close };
}

/**
 * A token endpoint whose answer never ends: a 200 JSON body written as fast as it is read,
 * until the host hangs up.
 */
async function startEndlessTokenEndpoint() {
  const seen = { written: 0, hungUp: false };
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const endpoint = await startTokenEndpoint((_form, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"token_type":"bearer","access_token":"');
    const more = () => {
      for (let more = true; more && !res.destroyed; ) {
        seen.written += chunk.length;
        more = res.write(chunk);
      }
    };
    res.on('drain', more);
    res.on('close', () => {
      seen.hungUp = true;
    });
    more();
  });
  return { ...endpoint, seen };
}

describe('a token endpoint whose answer to a refresh never ends', () => {
  it('stops reading it at a bound, hangs up, and does not send that refresh token again', async () => {
    const endless = await startEndlessTokenEndpoint();
    const store = new MemoryTokenStore();
    const host = await echoHost(store, endless.url);
    try {
      await storeAuthorized(vendor.oauth, store, host.config.defaultUserId, Date.now() - 1000);
      const outcome = await host.callTool('EchoApi.GetItem', { item_id: '1' });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'upstream_unavailable' } });
      await expect.poll(() => endless.seen.hungUp, { timeout: 5000 }).toBe(true);
      expect(endless.seen.written).toBeLessThan(16 * 1024 * 1024);
      // Sent, and its answer unreadable: the vendor may have used it.
      expect(await store.get('echo-auth', host.config.defaultUserId)).toMatchObject({
        refreshSentAt: expect.any(Number),
      });
    } finally {
      await host.close();
      await endless.close();
    }
  });
});

/** A token endpoint that writes a sentence as its error, repeating every field it was sent. */
async function startEchoingTokenEndpoint() {
  const forms: URLSearchParams[] = [];
  const endpoint = await startTokenEndpoint((form, res) => {
    forms.push(form);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `not valid: ${[...form].map(([k, v]) => `${k}=${v}`).join(' ')}` }));
  });
  return { ...endpoint, forms };
}

describe('a token endpoint that echoes what it was sent in its error', () => {
  it('keeps the refresh token and the client secret out of the tool error and the log', async () => {
    const endpoint = await startEchoingTokenEndpoint();
    const { logger, lines: logs } = capturedLogger();
    const store = new MemoryTokenStore();
    const host = await echoHost(store, endpoint.url, logger);
    try {
      const { refreshToken } = await storeAuthorized(
        vendor.oauth,
        store,
        host.config.defaultUserId,
        Date.now() - 1000,
      );
      const outcome = await host.callTool('EchoApi.GetItem', { item_id: '1' });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'upstream_unavailable' } });
      await expect.poll(logs).toContain('token refresh failed');
      for (const secret of [refreshToken!, fakeClient.clientSecret]) {
        expect(JSON.stringify(outcome)).not.toContain(secret);
        expect(logs()).not.toContain(secret);
      }
    } finally {
      await host.close();
      await endpoint.close();
    }
  });

  it('keeps the client secret and the PKCE verifier off the page a sign-in ends on', async () => {
    const endpoint = await startEchoingTokenEndpoint();
    const host = await echoHost(new MemoryTokenStore(), endpoint.url);
    const server = await serveHttp(host, { port: 0 });
    try {
      const first = await host.callTool('EchoApi.GetItem', { item_id: '1' });
      const url = first.ok ? undefined : first.error.authorization?.url;
      if (!url) throw new Error('expected authorization_required');
      const browser = new Browser();
      const page = await browser.open(await startFlow(browser, url, ''));
      expect(page.text).toContain('The authorization code could not be exchanged');
      const sent = endpoint.forms.at(-1)!;
      expect(sent.get('grant_type')).toBe('authorization_code');
      for (const secret of [sent.get('client_secret')!, sent.get('code_verifier')!])
        expect(page.text).not.toContain(secret);
    } finally {
      await server.close();
      await host.close();
      await endpoint.close();
    }
  });
});

/**
 * Takes every write, but reports a refresh-sent mark as not written, as the Redis store does
 * when the master took it and no replica copied it in time (store.replicaAcks).
 */
class MarkNotCopiedStore extends MemoryTokenStore {
  override async set(providerId: string, userId: string, token: StoredToken): Promise<void> {
    await super.set(providerId, userId, token);
    if (token.refreshSentAt !== undefined) throw new Error('not copied to a replica');
  }
}

describe('a refresh whose refresh-sent mark the store did not copy to its replicas', () => {
  it('is not sent; the stored token is kept unmarked and the call is told to try again', async () => {
    const store = new MarkNotCopiedStore();
    const host = await echoHost(store);
    try {
      const user = host.config.defaultUserId;
      const stale = await storeAuthorized(vendor.oauth, store, user, Date.now() - 1000);
      const outcome = await host.callTool('EchoApi.GetItem', { item_id: '1' });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'store_unavailable', retryable: true } });
      expect(refreshes()).toBe(0);
      expect(vendor.upstream.requests).toHaveLength(0);
      // Not taken for a refresh that went unanswered: the next refresh may send it.
      expect(await store.get('echo-auth', user)).toEqual(stale);
    } finally {
      await host.close();
    }
  });

  it('calls with the access token while it is still good', async () => {
    const store = new MarkNotCopiedStore();
    const host = await echoHost(store);
    try {
      // Within the refresh skew (60 s) of its expiry: due for a refresh, still accepted.
      const token = await storeAuthorized(
        vendor.oauth,
        store,
        host.config.defaultUserId,
        Date.now() + 30_000,
      );
      expect(await host.callTool('EchoApi.GetItem', { item_id: '1' })).toMatchObject({ ok: true });
      expect(refreshes()).toBe(0);
      expect(vendor.upstream.requests[0]?.headers.authorization).toBe(`Bearer ${token.accessToken}`);
    } finally {
      await host.close();
    }
  });

  it('is sent all the same to a vendor known to keep refresh tokens', async () => {
    const store = new MarkNotCopiedStore();
    const host = await echoHost(store);
    try {
      const user = host.config.defaultUserId;
      const token = await storeAuthorized(vendor.oauth, store, user, Date.now() - 1000);
      await store.set('echo-auth', user, { ...token, refreshRotates: false });
      vendor.oauth.rotateRefreshTokens = false;
      expect(await host.callTool('EchoApi.GetItem', { item_id: '1' })).toMatchObject({ ok: true });
      expect(refreshes()).toBe(1);
    } finally {
      await host.close();
    }
  });
});

describe('a token endpoint that rotates the refresh token in an answer otherwise malformed', () => {
  const malformed: [string, (answer: Record<string, unknown>) => Record<string, unknown>][] = [
    ['no token_type', ({ token_type: _, ...rest }) => rest],
    ['token_type "mac"', (answer) => ({ ...answer, token_type: 'mac' })],
    ['expires_in "soon"', (answer) => ({ ...answer, expires_in: 'soon' })],
    ['scope a list', (answer) => ({ ...answer, scope: ['items.read'] })],
    ['no access_token', ({ access_token: _, ...rest }) => rest],
  ];
  for (const [what, rewrite] of malformed)
    it(`keeps the new refresh token, fails the refresh, and sends the new one next (${what})`, async () => {
      const { logger, lines: logs } = capturedLogger();
      const store = new MemoryTokenStore();
      const host = await echoHost(store, undefined, logger);
      try {
        const user = host.config.defaultUserId;
        const old = await storeAuthorized(vendor.oauth, store, user, Date.now() - 1000);
        const issued: Record<string, unknown>[] = [];
        vendor.oauth.rewriteRefresh = (answer) => {
          issued.push(answer);
          return rewrite(answer);
        };
        const failed = await host.callTool('EchoApi.GetItem', { item_id: '1' });
        expect(failed).toMatchObject({ ok: false, error: { code: 'upstream_unavailable', retryable: true } });
        const rotated = issued[0]!.refresh_token as string;
        expect(rotated).not.toBe(old.refreshToken);
        const kept = await store.get('echo-auth', user);
        expect(kept).toMatchObject({ refreshToken: rotated, refreshRotates: true });
        expect(kept).not.toHaveProperty('refreshSentAt');
        await expect.poll(logs).toContain('the refresh token it answered with is kept');
        for (const secret of [old.refreshToken!, rotated, issued[0]!.access_token as string]) {
          expect(JSON.stringify(failed)).not.toContain(secret);
          expect(logs()).not.toContain(secret);
        }

        vendor.oauth.rewriteRefresh = undefined;
        expect(await host.callTool('EchoApi.GetItem', { item_id: '2' })).toMatchObject({ ok: true });
        expect(vendor.oauth.grants.map((g) => g.refresh_token)).toEqual([old.refreshToken, rotated]);
        expect(vendor.oauth.reuses).toEqual([]);
      } finally {
        await host.close();
      }
    });
});
