import { afterEach, describe, expect, it } from 'vitest';
import { STORES } from './hooked-store.js';
import {
  authorizeInBrowser,
  authorizeParams,
  formFields,
  redeemCode,
  registerPublicClient,
  signInToConsent,
  startAuthorizationServer,
  TestBrowser,
} from './support.js';

// One person's sign-ins and authorizations are bounded: each sign-in makes a session, and each
// authorization a grant that lives a month. Only authorizations that complete (their code
// exchanged) count, so a person who closes a consent page, or a client that never redeems its
// code, costs nothing. The host's own pages sign in with no consent page, so they must not be
// startable from another site; they are not counted against the person's authorizations.
const REDIRECT = 'http://127.0.0.1:7777/callback';
const PAGES = 'http://127.0.0.1:5555/connections/callback';

const ends: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const end of ends.splice(0)) await end();
});

async function setUp(kind: keyof typeof STORES) {
  const { store, close } = STORES[kind]();
  const server = await startAuthorizationServer({
    store,
    firstPartyClients: [{ clientId: 'pages', redirectUris: [PAGES], clientName: 'Pages' }],
  });
  ends.push(close, () => server.close());
  const clientId = await registerPublicClient(server.issuer, REDIRECT);
  return { server, store, clientId };
}

const request = (clientId: string, redirectUri = REDIRECT) =>
  authorizeParams(clientId, redirectUri, { state: 'the-state' });

const exchange = (issuer: string, clientId: string, landed: URL, verifier: string, redirectUri = REDIRECT) =>
  redeemCode(issuer, { clientId, redirectUri }, landed.searchParams.get('code'), verifier);

describe.each(['memory', 'file'] as const)("a person's completed authorizations (%s store)", (kind) => {
  it('are bounded to 60 an hour, counting only those whose code was exchanged', async () => {
    const { server, clientId } = await setUp(kind);
    const browser = new TestBrowser();
    const authorize = async () => {
      const { verifier, params } = request(clientId);
      return { verifier, landed: await authorizeInBrowser(browser, server.issuer, params) };
    };
    // Never completed: codes never redeemed, a consent denied.
    for (let i = 0; i < 5; i++) expect((await authorize()).landed.searchParams.get('code')).toBeTruthy();
    const denied = await authorizeInBrowser(browser, server.issuer, request(clientId).params, {
      decision: 'deny',
    });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    for (let i = 0; i < 59; i++) {
      const { verifier, landed } = await authorize();
      expect((await exchange(server.issuer, clientId, landed, verifier)).status).toBe(200);
    }
    // Two codes issued while one more was allowed: the first exchanged completes the 60th.
    const [last, extra] = [await authorize(), await authorize()];
    expect((await exchange(server.issuer, clientId, last.landed, last.verifier)).status).toBe(200);
    const refused = await exchange(server.issuer, clientId, extra.landed, extra.verifier);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('at most 60 an hour'),
    });

    // The 61st is refused at the client's redirect URI, the person told why.
    const landed = (await authorize()).landed;
    expect(landed.origin + landed.pathname).toBe(REDIRECT);
    expect(landed.searchParams.get('code')).toBeNull();
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('error_description')).toMatch(
      /too many authorizations.*60 an hour and 240 a day/,
    );
    expect(landed.searchParams.get('state')).toBe('the-state');
    expect(landed.searchParams.get('iss')).toBe(server.issuer);

    // The host's own pages are not held to it, nor counted: their sign-in goes on.
    for (let i = 0; i < 2; i++) {
      const pages = request('pages', PAGES);
      const atPages = await authorizeInBrowser(browser, server.issuer, pages.params);
      expect(atPages.origin + atPages.pathname).toBe(PAGES);
      expect((await exchange(server.issuer, 'pages', atPages, pages.verifier, PAGES)).status).toBe(200);
    }
  }, 60_000);

  it('leave the pages uncounted: a person signing in to them often can still authorize a client', async () => {
    const { server, clientId } = await setUp(kind);
    const browser = new TestBrowser();
    for (let i = 0; i < 61; i++) {
      const pages = request('pages', PAGES);
      const landed = await authorizeInBrowser(browser, server.issuer, pages.params);
      expect((await exchange(server.issuer, 'pages', landed, pages.verifier, PAGES)).status).toBe(200);
    }
    const { verifier, params } = request(clientId);
    const landed = await authorizeInBrowser(browser, server.issuer, params);
    expect((await exchange(server.issuer, clientId, landed, verifier)).status).toBe(200);
  }, 60_000);
});

describe("a person's sign-ins", () => {
  it('are bounded to 60 an hour: the 61st is refused on the sign-in page', async () => {
    const { server, clientId } = await setUp('memory');
    for (let i = 0; i < 60; i++) {
      const page = await signInToConsent(new TestBrowser(), server.issuer, request(clientId).params);
      expect(page.url.pathname).toBe('/auth/consent');
    }
    const browser = new TestBrowser();
    const signInPage = await browser.open(
      `${server.issuer}/auth/authorize?${new URLSearchParams(request(clientId).params)}`,
      server.issuer,
    );
    const { action, fields } = formFields(signInPage.text);
    const refused = await browser.post(new URL(action, server.issuer), {
      ...fields,
      access_token: 'alice-token-0123456789',
    });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('You signed in too often lately (at most 60 times an hour)');
    expect(refused.headers.getSetCookie()).toEqual([]);
  }, 60_000);
});

describe("the local user's sign-ins", () => {
  it('are not counted: requests another page sends without the cookie cannot lock the person out', async () => {
    const server = await startAuthorizationServer({ signIn: { localUser: 'ann' } });
    ends.push(() => server.close());
    const clientId = await registerPublicClient(server.issuer, REDIRECT);
    const authorize = () =>
      `${server.issuer}/auth/authorize?${new URLSearchParams(request(clientId).params)}`;
    // An <img> on another site: no cookie, so each reaches the server as a new browser.
    for (let i = 0; i < 61; i++)
      expect(
        (await fetch(authorize(), { redirect: 'manual', headers: { 'sec-fetch-site': 'cross-site' } }))
          .status,
      ).toBe(303);
    const page = await new TestBrowser().open(authorize(), server.issuer);
    expect(page.url.pathname).toBe('/auth/consent');
  }, 60_000);
});

describe("the first-party pages' authorization", () => {
  it('is refused when the browser says another site started it, and goes on from this one', async () => {
    const { server } = await setUp('memory');
    const { params } = request('pages', PAGES);
    const url = `${server.issuer}/auth/authorize?${new URLSearchParams(params)}`;
    const crossSite = { headers: { 'sec-fetch-site': 'cross-site' } };
    // Refused before anything is kept: no browser id given, no request opened.
    const fresh = await new TestBrowser().request(url, crossSite);
    expect(fresh.status).toBe(403);
    expect(fresh.headers.getSetCookie()).toEqual([]);
    // Refused for a signed-in browser too, which would otherwise be handed a code at once.
    const browser = new TestBrowser();
    await signInToConsent(browser, server.issuer, request('pages', PAGES).params);
    const refused = await browser.request(url, crossSite);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();
    const page = await refused.text();
    expect(page).toContain('Another site sent you here');
    // Its link, followed by the person, is a navigation from this site: it signs them in.
    const link = /href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    expect(link).toBe(url);
    const followed = await browser.request(link, { headers: { 'sec-fetch-site': 'same-origin' } });
    expect(followed.status).toBe(303);
    const landed = await browser.open(
      new URL(followed.headers.get('location')!, server.issuer),
      server.issuer,
    );
    expect(landed.url.origin + landed.url.pathname).toBe(PAGES);
    expect(landed.url.searchParams.get('code')).toBeTruthy();
    // Another client's is not refused: its consent is a form a site cannot post.
    const other = await registerPublicClient(server.issuer, REDIRECT);
    const theirs = await browser.request(
      `${server.issuer}/auth/authorize?${new URLSearchParams(request(other).params)}`,
      { headers: { 'sec-fetch-site': 'cross-site' } },
    );
    expect(theirs.status).toBe(303);
    expect(theirs.headers.get('location')).toContain('/auth/consent');
  });
});
