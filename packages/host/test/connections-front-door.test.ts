import { createServer } from 'node:net';
import { MemoryTokenStore } from '@toolhost/credentials';
import type { Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { Browser, formOf, type Page } from './browser.js';
import { launchChromium } from './chromium.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
} from './fake-oauth-server.js';
import { ALICE_ACCESS_TOKEN, BOB_ACCESS_TOKEN, fixtureApp } from './support.js';
import { startTeamIdp, type TeamIdp } from './team-idp.js';

// Where OAuth is the door of the MCP endpoint, /connections signs the person in through it (an
// OAuth client of the same authorization server, its token checked as the MCP endpoint checks
// it), and the vendor links are bound only to a browser signed in as the flow's user.

let vendor: FakeOAuthServer;
beforeAll(async () => {
  vendor = await startFakeOAuthServer();
});
afterAll(async () => {
  await vendor?.close();
});

async function startHost(
  authorization: object,
  port = 0,
  accessTokens = new AccessTokens({ alice: ALICE_ACCESS_TOKEN, bob: BOB_ACCESS_TOKEN }),
) {
  const host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      auth: { providers: echoAuthProviders(vendor) },
      http: { authorization },
    },
    {
      configDir: fixtureApp,
      env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret },
      tokenStore: new MemoryTokenStore(),
    },
  );
  const server = await serveHttp(host, { port, accessTokens });
  return { host, server, origin: new URL(server.url).origin };
}

describe('/connections with the host’s own authorization server', () => {
  let host: Host;
  let server: HttpServerHandle;
  let origin: string;
  let chromium: Chromium;

  beforeAll(async () => {
    ({ host, server, origin } = await startHost({ mode: 'host' }));
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
    await host?.close();
  });

  it('sends the browser to the authorization server’s sign-in, and back signed in as that user', async () => {
    const page = await chromium.newPage();
    await page.goto(`${origin}/connections`);
    expect(new URL(page.url()).pathname).toBe('/auth/sign-in');
    await page.fill('input[name=access_token]', ALICE_ACCESS_TOKEN);
    await page.click('button[type=submit]');
    // No consent page for the host's own pages: straight back, signed in.
    await page.waitForURL(`${origin}/connections`);
    await expect.poll(() => page.textContent('body')).toContain('Signed in as alice: your connections.');
    expect(await page.getByRole('link', { name: 'Connect Echo Inc.' }).count()).toBe(1);
    // The vendor link starts alice's authorization and reaches the vendor in this browser.
    const toVendor = page.waitForRequest((r) => r.url().startsWith(vendor.authorizeUrl));
    await page.getByRole('link', { name: 'Connect Echo Inc.' }).click();
    expect(new URL((await toVendor).url()).searchParams.get('client_id')).toBe(fakeClient.clientId);
    await page.close();
  });

  it('refuses a callback whose state is not the one this browser started with', async () => {
    const browser = new Browser();
    const start = await browser.request(`${origin}/connections`);
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.pathname).toBe('/auth/authorize');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${origin}/connections/callback`);
    const callback = await browser.request(`${origin}/connections/callback?code=anything&state=not-the-one`);
    expect(callback.status).toBe(400);
    expect(callback.headers.getSetCookie().join()).not.toContain('toolhost_connections=');
    // Nor without the browser's state cookie at all, even with the right state.
    const stranger = await fetch(
      `${origin}/connections/callback?code=anything&state=${authorize.searchParams.get('state')}`,
      { redirect: 'manual' },
    );
    expect(stranger.status).toBe(400);
  });

  it('binds a vendor link only to a browser signed in as the user who started it', async () => {
    const provider = host.oauthProviders.find((p) => p.id === 'echo-auth')!;
    const flow = await provider.signIn.start('alice', []);
    // Not signed in: sent to sign in, never on to the vendor.
    const anonymous = await new Browser().open(flow.url);
    expect(anonymous.url.pathname).toBe('/auth/sign-in');
    expect(anonymous.url.origin).toBe(origin);
    // Signed in as bob: refused.
    const bob = new Browser();
    await bob.submit(`${origin}/connections/sign-in`, { access_token: BOB_ACCESS_TOKEN });
    const refused = await bob.open(flow.url);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('another user');
    // Signed in as alice: on to the vendor.
    const alice = new Browser();
    await alice.submit(`${origin}/connections/sign-in`, { access_token: ALICE_ACCESS_TOKEN });
    const onward = await alice.open(flow.url, {}, (next) => next.href.startsWith(vendor.authorizeUrl));
    expect(onward.url.href.startsWith(vendor.authorizeUrl)).toBe(true);
  });
});

describe('/connections with the team’s identity provider', () => {
  let idp: TeamIdp;
  let host: Host;
  let server: HttpServerHandle;
  let origin: string;

  beforeAll(async () => {
    idp = await startTeamIdp();
    const port = await freePort();
    // The operator registers the pages' client at the IdP, with its exact redirect URI.
    const registered = await fetch(`${idp.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [`http://127.0.0.1:${port}/connections/callback`],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        scope: 'tools:read tools:write',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    ({ host, server, origin } = await startHost(
      { issuer: idp.issuer, pagesClient: { clientId: client_id } },
      port,
      new AccessTokens({}),
    ));
    idp.allowResource(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await host?.close();
    await idp?.close();
  });

  it('signs the person in at the IdP and shows their connections as the token’s subject', async () => {
    const browser = new Browser();
    const atHost = (next: URL) => next.origin === origin && next.pathname === '/connections/callback';
    let page: Page = await browser.open(`${origin}/connections`, {}, atHost);
    for (let step = 0; step < 3 && !atHost(page.url); step++) {
      const { action, fields } = formOf(page);
      page = await browser.submit(action, { ...fields, login: 'carol', password: 'any' }, atHost);
    }
    expect(atHost(page.url)).toBe(true);
    const landed = await browser.open(page.url);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('url=/connections');
    const list = await browser.open(`${origin}/connections`);
    expect(list.text).toContain('Signed in as carol: your connections.');
    expect(list.text).toContain('Connect Echo Inc.');
  });

  it('refuses a vendor link to a browser that is not signed in', async () => {
    const flow = await host.oauthProviders[0]!.signIn.start('carol', []);
    const page = await new Browser().open(flow.url, {}, (next) => next.origin !== origin);
    expect(page.url.href.startsWith(vendor.authorizeUrl)).toBe(false);
    expect(page.url.href.startsWith(idp.issuer)).toBe(true);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
