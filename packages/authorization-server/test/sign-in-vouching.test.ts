import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
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

// A rolling restart: two replicas share one store, and the one started with the new config has
// no access-token sign-in. It cannot tell whether a grant made with a token still stands. It
// answered `invalid_grant` and spent the code, so the client, told to sign in again, lost a
// grant that the other replica would have honoured; now it answers 503 and spends nothing, and
// the client's retry lands where the binding can be checked.
const REDIRECT = 'http://127.0.0.1:7777/callback';
const tokens = new Map([['alice', 'alice-token-0123456789']]);
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const store = new MemoryStateStore();
const sealKey = randomBytes(32);

/** A replica with access-token sign-in, and one whose config has none. */
let vouching: Running;
let lagging: Running;
/** A replica whose every token was removed (after a leak): it offers no token sign-in, yet vouches. */
let retired: Running;
beforeAll(async () => {
  vouching = await startAuthorizationServer({
    store,
    sealKey,
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
  // Same issuer and resource as the first: one server behind a balancer.
  lagging = await startAuthorizationServer({
    store,
    sealKey,
    issuer: vouching.issuer,
    resources: [vouching.resource],
    signIn: {},
  });
  retired = await startAuthorizationServer({
    store,
    sealKey,
    issuer: vouching.issuer,
    resources: [vouching.resource],
    signIn: { accessToken: { userForToken: () => undefined, bindingOf: () => undefined, offered: false } },
  });
});
afterAll(async () => {
  await vouching.close();
  await lagging.close();
  await retired.close();
});

/** A code consented to by Alice, signed in with her token, and the request that redeems it. */
async function aliceCode() {
  const clientId = await registerPublicClient(vouching.issuer, REDIRECT);
  const { verifier, params } = authorizeParams(clientId, REDIRECT);
  const landed = await authorizeInBrowser(new TestBrowser(), vouching.issuer, params);
  const code = landed.searchParams.get('code');
  return {
    clientId,
    redeem: (at: Running) => redeemCode(at.issuer, { clientId, redirectUri: REDIRECT }, code, verifier),
  };
}

describe('a replica with no access-token sign-in', () => {
  it('answers 503 for a code made with a token, and leaves it for a replica that can check it', async () => {
    const { redeem } = await aliceCode();
    const refused = await redeem(lagging);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    // Not spent: the retry at the other replica starts the grant.
    expect((await redeem(vouching)).status).toBe(200);
  });

  it('answers 503 for a refresh, rotating nothing, and refuses the access tokens without revoking', async () => {
    const { clientId, redeem } = await aliceCode();
    const issued = (await (await redeem(vouching)).json()) as { access_token: string; refresh_token: string };
    const refresh = (at: Running) => refreshRequest(at.issuer, clientId, issued.refresh_token);

    const refused = await refresh(lagging);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(await lagging.as.verify(issued.access_token)).toMatchObject({
      ok: false,
      rejection: { kind: 'invalid', reason: expect.stringContaining('cannot check') },
    });
    // The grant stands where the binding is known: its access token, and the same refresh token.
    expect(await vouching.as.verify(issued.access_token)).toMatchObject({ ok: true });
    expect((await refresh(vouching)).status).toBe(200);
  });
});

describe('a code whose sign-in token changed', () => {
  it('is refused invalid_grant and not spent: the operator putting the token back restores it', async () => {
    const { redeem } = await aliceCode();
    tokens.set('alice', 'alice-token-not-rolled-out-yet');
    const refused = await redeem(vouching);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    tokens.set('alice', 'alice-token-0123456789');
    expect((await redeem(vouching)).status).toBe(200);
  });
});

describe('a replica whose every access token was removed', () => {
  it('ends grants made with a token (invalid_grant, not 503 for good) and offers no token sign-in', async () => {
    const { clientId, redeem } = await aliceCode();
    const issued = (await (await redeem(vouching)).json()) as { access_token: string; refresh_token: string };
    const refused = await refreshRequest(retired.issuer, clientId, issued.refresh_token);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await retired.as.verify(issued.access_token)).toMatchObject({ ok: false });

    // Its pages name the shared issuer: each hop is asked of this replica itself.
    const browser = new TestBrowser();
    const sent = await browser.request(authorizationUrl(retired.issuer, clientId, REDIRECT));
    const signIn = new URL(sent.headers.get('location')!);
    const page = await browser.request(`${retired.issuer}${signIn.pathname}${signIn.search}`);
    const text = await page.text();
    expect(text).toContain('No way to sign in is configured');
    expect(text).not.toContain('name="access_token"');
  });
});
