import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationUrl,
  authorizeInBrowser,
  authorizeParams,
  type Running,
  redeemCode,
  refreshRequest,
  registerPublicClient,
  startAuthorizationServer,
  TestBrowser,
} from './support.js';

// People sign in by pasting the access token the operator gave them. Replacing a leaked token,
// or removing a person, must end what was signed in with the old one: the browser's sign-in,
// codes not yet redeemed, refresh tokens and access tokens. Before, a grant made with a token
// since replaced refreshed on for as long as its client kept using it.
const REDIRECT = 'http://127.0.0.1:7777/callback';

/** The operator's tokens by user, changed by the tests as an operator edits the config. */
const tokens = new Map([
  ['alice', 'alice-token-0123456789'],
  ['bob', 'bob-token-0123456789'],
  ['carol', 'carol-token-0123456789'],
]);
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

let as: Running;
beforeAll(async () => {
  as = await startAuthorizationServer({
    signIn: {
      accessToken: {
        userForToken: (token) => [...tokens].find(([, t]) => t === token)?.[0],
        bindingOf: (user) => {
          const token = tokens.get(user);
          return token === undefined ? undefined : digest(token);
        },
      },
    },
  });
});
afterAll(() => as.close());

/** The token request that redeems the code a browser landed with. */
const redeem = (clientId: string, landed: URL, verifier: string) =>
  redeemCode(as.issuer, { clientId, redirectUri: REDIRECT }, landed.searchParams.get('code'), verifier);

/** Signs `user` in with their token in a fresh browser, consents, and redeems the code. */
async function signedInClient(user: string) {
  const clientId = await registerPublicClient(as.issuer, REDIRECT);
  const browser = new TestBrowser();
  const { verifier, params } = authorizeParams(clientId, REDIRECT);
  const landed = await authorizeInBrowser(browser, as.issuer, params, { token: tokens.get(user)! });
  const res = await redeem(clientId, landed, verifier);
  expect(res.status).toBe(200);
  const issued = (await res.json()) as { access_token: string; refresh_token: string };
  return { clientId, browser, ...issued };
}

const refresh = (clientId: string, refreshToken: string) => refreshRequest(as.issuer, clientId, refreshToken);

describe('a sign-in made with an access token', () => {
  it('ends with the token: its grant no longer refreshes and its access tokens are refused', async () => {
    const alice = await signedInClient('alice');
    const bob = await signedInClient('bob');
    tokens.set('alice', 'alice-new-token-0123456789');

    const refused = await refresh(alice.clientId, alice.refresh_token);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await as.as.verify(alice.access_token)).toMatchObject({ ok: false });
    // Bob's token did not change: his grant goes on.
    expect((await refresh(bob.clientId, bob.refresh_token)).status).toBe(200);
    expect(await as.as.verify(bob.access_token)).toMatchObject({ ok: true });
  });

  it('ends when the person is removed, and their browser is asked to sign in again', async () => {
    const carol = await signedInClient('carol');
    tokens.delete('carol');

    expect((await refresh(carol.clientId, carol.refresh_token)).status).toBe(400);
    const page = await carol.browser.open(authorizationUrl(as.issuer, carol.clientId, REDIRECT), as.issuer);
    // The old sign-in no longer counts: the browser is at the sign-in page, not at consent.
    expect(page.url.pathname).toBe('/auth/sign-in');
  });

  it('refuses without revoking: a replica whose config lags (a rolling restart) ends nothing for good', async () => {
    // A refresh landing on a replica that still holds the old token, or none, was answered by
    // revoking the grant, for every replica; refused only, it refreshes where the config agrees.
    tokens.set('erin', 'erin-token-0123456789');
    const erin = await signedInClient('erin');
    tokens.set('erin', 'erin-token-not-yet-rolled-out');
    expect((await refresh(erin.clientId, erin.refresh_token)).status).toBe(400);
    tokens.set('erin', 'erin-token-0123456789');
    expect((await refresh(erin.clientId, erin.refresh_token)).status).toBe(200);
  });

  it('takes the codes consented to with the old token, not yet redeemed, with it', async () => {
    tokens.set('dave', 'dave-token-0123456789');
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const { verifier, params } = authorizeParams(clientId, REDIRECT);
    const landed = await authorizeInBrowser(new TestBrowser(), as.issuer, params, {
      token: 'dave-token-0123456789',
    });
    tokens.set('dave', 'dave-new-token-0123456789');
    const res = await redeem(clientId, landed, verifier);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
