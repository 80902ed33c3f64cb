import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeInBrowser, pkce, type Running, startAuthorizationServer, TestBrowser } from './support.js';

const PAGES = 'http://127.0.0.1:5555/connections/callback';

let as: Running;
beforeAll(async () => {
  as = await startAuthorizationServer({
    firstPartyClients: [{ clientId: 'pages', redirectUris: [PAGES], clientName: 'Pages' }],
  });
});
afterAll(() => as.close());

const request = (redirectUri: string) => ({
  response_type: 'code',
  client_id: 'pages',
  redirect_uri: redirectUri,
  code_challenge: pkce().challenge,
  code_challenge_method: 'S256',
});

// A first-party client is issued its code with no consent page: the any-port leniency of
// loopback redirect URIs (RFC 8252, for native apps on whatever port is free) would hand a
// signed-in person's code, unasked, to whatever listens on another port of the machine.
describe("a first-party client's redirect URI", () => {
  it('is its own exactly, not the same on another loopback port', async () => {
    const res = await new TestBrowser().request(
      `${as.issuer}/auth/authorize?${new URLSearchParams(request('http://127.0.0.1:6666/connections/callback'))}`,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    // Its own gets the code, with no consent page.
    const landed = await authorizeInBrowser(new TestBrowser(), as.issuer, request(PAGES));
    expect(landed.origin + landed.pathname).toBe(PAGES);
    expect(landed.searchParams.get('code')).toBeTruthy();
  });
});
