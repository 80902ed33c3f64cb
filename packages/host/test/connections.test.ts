import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EncryptedFileTokenStore, MemoryTokenStore } from '@toolhost/credentials';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { launchChromium } from './chromium.js';
import { echoAuthProviders, type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { cli, fixtureApp, spawnHttpHost } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

const ALICE = 'alice-access-token-0123456789';
const BOB = 'bob-access-token-9876543210xx';
const seed = (n: string) => ({
  accessToken: `access-${n}`,
  refreshToken: `refresh-${n}`,
  expiresAt: Date.now() + 3_600_000,
  scopes: ['items.read'],
});

let vendor: VendorFakes;
let oauth: FakeOAuthServer;
let upstream: RecordingUpstream;
beforeAll(async () => {
  vendor = await startVendorFakes();
  ({ oauth, upstream } = vendor);
});
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

function config() {
  return {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    auth: {
      providers: echoAuthProviders(oauth, {
        revokeUrl: oauth.revokeUrl,
        account: { via: 'introspection', url: oauth.introspectUrl, fields: ['user', 'hub_domain'] },
      }),
    },
  };
}

/** What the test reads of a page's window (the tests compile without the DOM's types). */
interface BrowserWindow {
  document: { documentElement: { scrollWidth: number } };
  getComputedStyle(element: unknown): { getPropertyValue(property: string): string };
}

/** A computed style of the element a locator finds. */
function styleOf(locator: Locator, property: string): Promise<string> {
  return locator.evaluate(
    (element, p) => (globalThis as unknown as BrowserWindow).getComputedStyle(element).getPropertyValue(p),
    property,
  );
}

describe('the /connections page, in a real browser', () => {
  let host: Host;
  let server: HttpServerHandle;
  let store: MemoryTokenStore;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    store = new MemoryTokenStore();
    await store.set('echo-auth', 'alice', { ...seed('alice'), account: 'alice@echo.example · echo.example' });
    await store.set('echo-auth', 'bob', seed('bob'));
    host = await createHost(
      { ...config(), http: { operators: ['bob'] } },
      {
        configDir: fixtureApp,
        env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret },
        tokenStore: store,
      },
    );
    server = await serveHttp(host, { port: 0, accessTokens: new AccessTokens({ alice: ALICE, bob: BOB }) });
    return async () => {
      await server.close();
      await host.close();
    };
  });

  it('signs a user in, lists only their connections, disconnects, and the next call asks to authorize', async () => {
    expect(await host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' })).toMatchObject({
      ok: true,
    });
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', ALICE);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('body')).toContain('Signed in as alice: your connections.');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Echo Inc. (echo-auth)');
    expect(await rows.first().textContent()).toContain('items.read');
    expect(await page.textContent('body')).not.toContain('bob');

    // Disconnecting asks first; cancelling keeps the connection.
    await rows.first().getByRole('link', { name: 'Disconnect' }).click();
    await expect.poll(() => page.textContent('h1')).toBe('Disconnect Echo Inc.?');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await store.get('echo-auth', 'alice')).toBeDefined();
    await page.locator('tbody tr').first().getByRole('link', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Yes, disconnect' }).click();
    await expect.poll(() => page.textContent('body')).toContain('No connections.');
    await page.close();

    expect(await store.get('echo-auth', 'alice')).toBeUndefined();
    expect(await store.get('echo-auth', 'bob')).toBeDefined();
    expect(oauth.revocations).toEqual([{ token: 'refresh-alice', token_type_hint: 'refresh_token' }]);
    const next = await host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' });
    expect(next).toMatchObject({ ok: false, error: { code: 'authorization_required' } });
  });

  it('shows when the access token expires in the reader’s own time zone', async () => {
    const expiresAt = Date.UTC(2031, 0, 15, 22, 30);
    await store.set('echo-auth', 'alice', { ...seed('alice'), expiresAt });
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', ALICE);
    await page.click('button[type=submit]');
    const time = page.locator('tbody tr time');
    // 22:30 UTC is 07:30 the next day in Tokyo.
    await expect.poll(() => time.textContent()).toMatch(/^16 Jan 2031, 07:30 \(in \d+ years\)$/);
    expect(await time.getAttribute('title')).toBe('2031-01-15 22:30 UTC');
    await context.close();
  });

  it('connects a service from the page, and signs out', async () => {
    await store.delete('echo-auth', 'alice');
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', ALICE);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('body')).toContain('No connections.');
    await page.getByRole('link', { name: 'Connect Echo Inc.' }).click();
    // The host asks whose authorization this is, then the authorization server consents and
    // sends the browser back to the host, which keeps the token for alice.
    await page.fill('input[name=access_token]', ALICE);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('h1')).toBe('Authorization complete');
    // Every tool of the service works afterwards: the scope of each was asked for.
    expect((await store.get('echo-auth', 'alice'))?.scopes).toEqual(['items.read', 'items.write']);
    // Which of the person's vendor accounts it is, read once by introspecting the new token.
    expect((await store.get('echo-auth', 'alice'))?.account).toBe('person-1@echo.example · echo.example');
    expect(oauth.accountLookups).toEqual([
      {
        path: '/introspect',
        form: {
          token: 'access-1',
          token_type_hint: 'access_token',
          client_id: fakeClient.clientId,
          client_secret: fakeClient.clientSecret,
        },
      },
    ]);
    await page.goto(`${new URL(server.url).origin}/connections`);
    expect(await page.locator('tbody tr').first().textContent()).toContain('Echo Inc. (echo-auth)');
    expect(await page.locator('tbody tr td[data-label=Account]').first().textContent()).toBe(
      'person-1@echo.example · echo.example',
    );
    expect(await host.callTool('EchoApi.GetItem', { item_id: '1' }, { userId: 'alice' })).toMatchObject({
      ok: true,
    });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.textContent('body')).toContain('Sign in with your access token');
    await page.goto(`${new URL(server.url).origin}/connections`);
    expect(await page.textContent('body')).toContain('Sign in with your access token');
    await page.close();
  });

  it('reads on a desktop and on a phone, and answers HEAD', async () => {
    const origin = new URL(server.url).origin;
    const head = await fetch(`${origin}/connections`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('text/html');
    expect(await head.text()).toBe('');
    const shots = process.env.TOOLHOST_SCREENSHOTS;
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(`${origin}/connections`);
      await page.fill('input[name=access_token]', BOB);
      await page.click('button[type=submit]');
      await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(0);
      // The stylesheet applies (the CSP allows it by its hash), and nothing is wider than the screen.
      expect(await styleOf(page.locator('h1'), 'font-family')).toContain('system-ui');
      expect(
        await page.evaluate(
          () => (globalThis as unknown as BrowserWindow).document.documentElement.scrollWidth,
        ),
      ).toBeLessThanOrEqual(width);
      const firstCell = page.locator('tbody tr').first().locator('td').first();
      // On a phone each row is a card whose cells say what they are.
      expect(await styleOf(firstCell, 'display')).toBe(width < 600 ? 'block' : 'table-cell');
      if (shots) await page.screenshot({ path: `${shots}/connections-${width}.png`, fullPage: true });
      await page.close();
    }
  });

  it("shows an operator every user's connections", async () => {
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', BOB);
    await page.click('button[type=submit]');
    await expect
      .poll(() => page.textContent('body'))
      .toContain("Signed in as bob (operator): every user's connections.");
    const users = await page.locator('tbody tr td:first-child').allTextContents();
    expect(users).toEqual(['alice', 'bob']);
    // The account each acts for, where it was read when they connected.
    expect(await page.locator('tbody tr td[data-label=Account]').allTextContents()).toEqual([
      'alice@echo.example · echo.example',
      '(not known)',
    ]);
    await page.close();
  });

  it('tells the person when revoking at the vendor failed: the grant may still be alive there', async () => {
    oauth.revokeFailure = 503;
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', ALICE);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('body')).toContain('Signed in as alice: your connections.');
    await page.locator('tbody tr').first().getByRole('link', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Yes, disconnect' }).click();
    await expect
      .poll(() => page.textContent('#notice').catch(() => ''))
      .toContain(
        "Disconnected alice from Echo Inc. here, but revoking the grant at Echo Inc. failed (the host's log says why): the grant may still be alive there.",
      );
    expect(await page.getAttribute('#notice', 'role')).toBe('alert');
    expect(await page.textContent('body')).toContain('No connections.');
    // The answer was a redirect: a reload shows the page again and sends nothing.
    expect(page.url()).toContain('/connections?ended=echo-auth');
    await page.reload();
    expect(await page.textContent('#notice')).toContain('Disconnected alice from Echo Inc.');
    await page.close();
    expect(await store.get('echo-auth', 'alice')).toBeUndefined();
    expect(oauth.revocations).toEqual([]);
  });

  it('says the grant was revoked at the vendor when it was', async () => {
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', ALICE);
    await page.click('button[type=submit]');
    await page.locator('tbody tr').first().getByRole('link', { name: 'Disconnect' }).click();
    await page.getByRole('button', { name: 'Yes, disconnect' }).click();
    await expect
      .poll(() => page.textContent('#notice').catch(() => ''))
      .toContain('the grant was revoked at Echo Inc. and the tokens deleted here');
    await page.close();
  });

  it('refuses an unknown provider, naming it, and ends nothing', async () => {
    const origin = new URL(server.url).origin;
    const signedIn = await fetch(`${origin}/connections/sign-in`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: `access_token=${BOB}`,
      redirect: 'manual',
    });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const res = await fetch(`${origin}/connections/disconnect`, {
      method: 'POST',
      headers: { origin, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=alice&provider=nope-auth',
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(
      'No OAuth provider &#39;nope-auth&#39; is configured here (providers: echo-auth).',
    );
    expect(await store.get('echo-auth', 'alice')).toBeDefined();
  });

  it('refuses a wrong access token and a form posted from another site', async () => {
    const page = await browser.newPage();
    await page.goto(`${new URL(server.url).origin}/connections`);
    await page.fill('input[name=access_token]', 'not-a-token-of-anyone');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('body')).toContain('That access token is not valid.');
    await page.close();
    const forged = await fetch(`${new URL(server.url).origin}/connections/disconnect`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=bob&provider=echo-auth',
    });
    expect(forged.status).toBe(403);
    expect(await store.get('echo-auth', 'bob')).toBeDefined();
  });
});

describe('toolhost connections', () => {
  it('lists and revokes connections kept in the encrypted token file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-connections-'));
    const key = 'token-key-for-the-connections-test';
    const file = EncryptedFileTokenStore.inDirectory(dataDir, key);
    await file.set('echo-auth', 'carol', seed('carol'));
    await file.flush();
    const configFile = join(dataDir, 'toolhost.config.json');
    writeFileSync(configFile, JSON.stringify({ ...config(), auth: { ...config().auth, dataDir } }));
    const env = {
      PATH: process.env.PATH ?? '',
      TOOLHOST_TOKEN_KEY: key,
      ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
    };
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, [hostCliPath(), '--config', configFile, 'connections', ...args], {
        env,
        cwd: fixtureApp,
      });

    const listed = await cli(['list']);
    expect(listed.stdout).toMatch(/^carol {2}echo-auth {2}scopes: items\.read, access token expires \d{4}-/m);
    expect(listed.stdout).toContain('1 connection');
    expect(listed.stdout).not.toContain('refresh-carol');
    // Without the key the file cannot be read: said so, rather than "0 connections".
    const keyless = await promisify(execFile)(
      process.execPath,
      [hostCliPath(), '--config', configFile, 'connections', 'list'],
      { env: { PATH: env.PATH, ECHO_AUTH_CLIENT_SECRET: env.ECHO_AUTH_CLIENT_SECRET }, cwd: fixtureApp },
    ).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(keyless).toMatchObject({ code: 1, stdout: '' });
    expect(keyless.stderr).toContain(
      `the token file ${join(dataDir, 'tokens.enc.json')} cannot be read without TOOLHOST_TOKEN_KEY`,
    );

    const revoked = await cli(['revoke', '--user', 'carol', '--provider', 'echo-auth']);
    expect(revoked.stdout).toBe('Disconnected carol from echo-auth (revoked at the vendor).\n');
    expect(oauth.revocations).toEqual([{ token: 'refresh-carol', token_type_hint: 'refresh_token' }]);
    expect((await cli(['list'])).stdout).toContain('0 connections');
  });

  it('shows user ids and accounts from the store with their unseen characters escaped, the JSON intact', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-connections-hostile-'));
    const key = 'token-key-for-the-hostile-rows-test';
    // A user id and an account that would clear the line and rewrite it, or reverse what follows.
    const user = 'mallory\u001b[2K\rroot';
    const account = '\u202emoc.elpmaxe@eve';
    const file = EncryptedFileTokenStore.inDirectory(dataDir, key);
    await file.set('echo-auth', user, { ...seed('mallory'), account });
    await file.flush();
    const configFile = join(dataDir, 'toolhost.config.json');
    writeFileSync(configFile, JSON.stringify({ ...config(), auth: { ...config().auth, dataDir } }));
    const env = { TOOLHOST_TOKEN_KEY: key, ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret };
    const connections = (args: string[]) => cli(['--config', configFile, 'connections', ...args], env);

    const listed = await connections(['list']);
    expect(listed.stdout).toMatch(
      /^mallory\\u001b\[2K\\rroot {2}echo-auth {2}account: \\u202emoc\.elpmaxe@eve {2}scopes: items\.read, access token expires \d{4}-/m,
    );
    const json = await connections(['list', '--json']);
    expect(json.stdout).toContain('"userId": "mallory\\u001b[2K\\rroot"');
    expect(JSON.parse(json.stdout)).toMatchObject([{ userId: user, providerId: 'echo-auth', account }]);
    const none = await connections(['revoke', '--user', `${user}\u202e`, '--provider', 'echo-auth']);
    expect(none).toMatchObject({
      code: 1,
      stdout: 'mallory\\u001b[2K\\rroot\\u202e has no connection with echo-auth.\n',
    });
    const revoked = await connections(['revoke', '--user', user, '--provider', 'echo-auth']);
    expect(revoked.stdout).toBe(
      'Disconnected mallory\\u001b[2K\\rroot from echo-auth (revoked at the vendor).\n',
    );
    for (const r of [listed, json, none, revoked])
      for (const raw of ['\u001b', '\r', '\u202e']) expect(r.stdout + r.stderr).not.toContain(raw);
    expect(listed.stdout + json.stdout).not.toContain('refresh-mallory');
  });
});

describe('the token file with more than one writer', () => {
  it('makes a CLI revoke take effect at the next call of a running host, which then keeps it revoked', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolhost-two-writers-'));
    const key = 'token-key-for-the-two-writers-test';
    const seeded = EncryptedFileTokenStore.inDirectory(dataDir, key);
    await seeded.set('echo-auth', 'alice', seed('alice'));
    const bobs = await storeAuthorized(oauth, seeded, 'bob', Date.now() - 1000);
    await seeded.flush();
    const hostConfig = { ...config(), auth: { ...config().auth, dataDir } };
    const configFile = join(dataDir, 'toolhost.config.json');
    writeFileSync(configFile, JSON.stringify(hostConfig));
    const env = {
      TOOLHOST_TOKEN_KEY: key,
      ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}`,
    };
    const served = await spawnHttpHost(hostConfig, env);
    try {
      // The start line names what to register with the vendor's OAuth app.
      expect(served.logs()).toMatch(
        /"redirectUris":\{"echo-auth":"http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\/echo-auth"\}[^\n]*"msg":"listening"/,
      );
      const call = async (token: string, id: string) => {
        const client = new Client({ name: 'two-writers', version: '0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(served.url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        const result = (await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } })) as {
          isError?: boolean;
          structuredContent?: { error?: { code: string } };
        };
        await client.close();
        return result.isError ? result.structuredContent?.error?.code : 'ok';
      };
      expect(await call(ALICE, 'a1')).toBe('ok');
      await promisify(execFile)(
        process.execPath,
        [
          hostCliPath(),
          '--config',
          configFile,
          'connections',
          'revoke',
          '--user',
          'alice',
          '--provider',
          'echo-auth',
        ],
        { env: { PATH: process.env.PATH ?? '', ...env }, cwd: fixtureApp },
      );
      expect(await call(ALICE, 'a2')).toBe('authorization_required');
      // The host writes the file (bob's refresh): alice stays revoked.
      expect(await call(BOB, 'b1')).toBe('ok');
      expect(oauth.grants.map((g) => g.grant_type)).toEqual(['refresh_token']);
      const after = EncryptedFileTokenStore.inDirectory(dataDir, key);
      expect(await after.get('echo-auth', 'alice')).toBeUndefined();
      expect((await after.get('echo-auth', 'bob'))?.accessToken).not.toBe(bobs.accessToken);
      expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([
        'Bearer access-alice',
        `Bearer ${(await after.get('echo-auth', 'bob'))?.accessToken}`,
      ]);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  }, 60_000);
});
