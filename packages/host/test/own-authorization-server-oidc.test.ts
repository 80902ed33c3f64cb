import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { launchChromium } from './chromium.js';
import { redeemCode, registerPublicClient } from './own-authorization-flow.js';
import { fixtureApp } from './support.js';
import { startTeamIdp, type TeamIdp } from './team-idp.js';

// "Sign in with" the team's OpenID provider: oidc-provider (nobody here wrote it) plays the
// team's IdP; the person signs in there and consents here, in headless Chromium, and the
// host's authorization server issues a token naming the IdP's user.

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let idp: TeamIdp;
let browser: Browser;
let host: Host;
let server: HttpServerHandle;
let origin: string;
let callbackServer: Server;
let redirectUri: string;

/** This host as a client of the IdP, registered there as a team's admin would. */
async function registerAtIdp(redirectUri: string): Promise<string> {
  const metadata = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as {
    registration_endpoint: string;
  };
  const res = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

beforeAll(async () => {
  idp = await startTeamIdp();
  // The client's redirect URI, served so that the browser lands somewhere.
  callbackServer = createHttpServer((_req, res) => res.end('done'));
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  browser = await launchChromium();
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await browser?.close();
  await idp?.close();
  callbackServer?.close();
});

/** Chromium from the authorization link to the client's redirect: signs in at the IdP as `login`. */
async function signInWithIdp(authorizeUrl: string, login: string): Promise<{ landed: URL; text: string }> {
  const page = await browser.newPage();
  try {
    await page.goto(authorizeUrl);
    await Promise.all([page.waitForURL(`${idp.issuer}/**`), page.click('text=Sign in with Team IdP')]);
    const loginUrl = page.url();
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any');
    await Promise.all([page.waitForURL((url) => url.href !== loginUrl), page.click('button[type=submit]')]);
    // The IdP's consent page, then back here to ours.
    await Promise.all([page.waitForURL(`${origin}/auth/consent**`), page.click('button[type=submit]')]);
    const text = (await page.textContent('body')) ?? '';
    await Promise.all([page.waitForURL(`${redirectUri}**`), page.click('button[value=allow]')]);
    return { landed: new URL(page.url()), text };
  } finally {
    await page.close();
  }
}

describe('sign in with the team OpenID provider', () => {
  it('signs the person in at the IdP, and the token names the IdP user', async () => {
    const port = await freePort();
    const clientAtIdp = await registerAtIdp(`http://127.0.0.1:${port}/auth/upstream/callback`);
    origin = `http://127.0.0.1:${port}`;
    host = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        http: {
          authorization: {
            mode: 'host',
            server: {
              signIn: {
                oidc: { issuer: idp.issuer, clientId: clientAtIdp, name: 'Team IdP', userClaim: 'sub' },
              },
            },
          },
        },
      },
      { configDir: fixtureApp },
    );
    server = await serveHttp(host, { port });
    const clientId = await registerPublicClient(origin, 'OIDC test client', redirectUri);
    const { createHash, randomBytes } = await import('node:crypto');
    const verifier = randomBytes(32).toString('base64url');
    const authorize = `${origin}/auth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;
    const { landed, text } = await signInWithIdp(authorize, 'carol');
    expect(text).toContain('carol');
    expect(landed.searchParams.get('iss')).toBe(origin);
    const token = await redeemCode(origin, clientId, landed, verifier, redirectUri);
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    expect(JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString()).sub).toBe('carol');
  }, 60_000);
});
