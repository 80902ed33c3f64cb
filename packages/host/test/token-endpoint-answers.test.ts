import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenStore } from '@toolhost/core';
import { EncryptedFileTokenStore, MemoryTokenStore } from '@toolhost/credentials';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHost } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import { echoAuthProviders, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { fixtureApp } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

let vendor: VendorFakes;
beforeAll(async () => {
  vendor = await startVendorFakes();
});
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

function echoHost(tokenStore: TokenStore, tokenUrl = vendor.oauth.tokenUrl) {
  return createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: vendor.upstream.url } },
      auth: { providers: echoAuthProviders(vendor.oauth, { tokenUrl }) },
    },
    { configDir: fixtureApp, env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret }, tokenStore },
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

/**
 * A token endpoint whose answer never ends: a 200 JSON body written as fast as it is read,
 * until the host hangs up.
 */
async function startEndlessTokenEndpoint() {
  const seen = { written: 0, hungUp: false };
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const server = createServer((req, res) => {
    req.resume();
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, seen, close };
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
