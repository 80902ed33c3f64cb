import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationEvent, MemoryStateStore } from '../src/index.js';
import {
  authorizationUrl,
  authorizeParams,
  formFields,
  type Running,
  redeemCode,
  refreshRequest,
  registerPublicClient,
  signInToConsent,
  startAuthorizationServer,
  startStatic,
  TestBrowser,
  upstreamLinkOf,
} from './support.js';

// What a sign-in leaves behind: how the person signed in, on the grant (for the audit log), and
// for a sign-in by access token what it keeps of the token. That was a bare SHA-256 of the
// embedder's binding, which whoever reads a leaked state file can guess where the binding has
// little entropy; it is now an HMAC under a key derived from the seal key, which is not in the file.
const REDIRECT = 'http://127.0.0.1:7777/callback';
const SESSION_SECONDS = 8 * 3600;
const tokens = new Map([['alice', 'alice-token-0123456789']]);
/** The embedder's binding of a user to their token: here, as the host has it, the token's digest. */
const bindingOf = (user: string) => {
  const token = tokens.get(user);
  return token === undefined ? undefined : createHash('sha256').update(token).digest('hex');
};
const bareHash = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The memory store, with what was written and for how long in view. */
class OpenStore extends MemoryStateStore {
  readonly ttls = new Map<string, number | undefined>();
  override set(key: string, value: string, ttlSeconds?: number) {
    this.ttls.set(key, ttlSeconds);
    return super.set(key, value, ttlSeconds);
  }
  keys(prefix: string): string[] {
    return [...this.entries.keys()].filter((k) => k.startsWith(prefix));
  }
}

const store = new OpenStore();
let byToken: Running;
beforeAll(async () => {
  byToken = await startAuthorizationServer({
    store,
    sealKey: randomBytes(32),
    signIn: {
      accessToken: { userForToken: (t) => [...tokens].find(([, v]) => v === t)?.[0], bindingOf },
    },
  });
});
afterAll(() => byToken.close());

const eventsOf = (as: Running) => as.events as AuthorizationEvent[];

/** Signs in through `browser`, consents, redeems the code: the tokens and the grant's record. */
async function granted(as: Running, browser: TestBrowser, toConsent = signInToConsent) {
  const clientId = await registerPublicClient(as.issuer, REDIRECT);
  const { verifier, params } = authorizeParams(clientId, REDIRECT);
  const page = await toConsent(browser, as.issuer, params);
  expect(page.url.pathname).toBe('/auth/consent');
  const { action, fields } = formFields(page.text);
  const allowed = await browser.post(new URL(action, as.issuer), { ...fields, decision: 'allow' });
  const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
  const res = await redeemCode(as.issuer, { clientId, redirectUri: REDIRECT }, code, verifier);
  expect(res.status).toBe(200);
  const issued = (await res.json()) as { access_token: string; refresh_token: string };
  const grantKey = `grant:${issued.refresh_token.split('.')[0]}`;
  const refresh = (token = issued.refresh_token) => refreshRequest(as.issuer, clientId, token);
  return { ...issued, clientId, grantKey, refresh };
}

describe('how a person signed in', () => {
  it('is recorded on the grant made by an access token and told in the audit events', async () => {
    const grant = await granted(byToken, new TestBrowser());
    expect(JSON.parse((await store.get(grant.grantKey))!)).toMatchObject({ signedInWith: 'access-token' });
    expect((await grant.refresh()).status).toBe(200);
    const told = eventsOf(byToken).filter((e) =>
      ['sign_in', 'consent', 'token_issued', 'token_refreshed'].includes(e.type),
    );
    expect(told.map((e) => [e.type, e.signedInWith])).toEqual([
      ['sign_in', 'access-token'],
      ['consent', 'access-token'],
      ['token_issued', 'access-token'],
      ['token_refreshed', 'access-token'],
    ]);
  });

  it('is the local user where the person at this machine was signed in by reaching it', async () => {
    const local = await startAuthorizationServer({ signIn: { localUser: 'ann' } });
    try {
      await granted(local, new TestBrowser());
      expect(eventsOf(local).find((e) => e.type === 'token_issued')).toMatchObject({
        subject: 'ann',
        signedInWith: 'local-user',
      });
    } finally {
      await local.close();
    }
  });

  it("is the team's provider for a sign-in through it", async () => {
    const provider = await startProvider();
    const upstream = await startAuthorizationServer({
      signIn: { upstream: { issuer: provider.base, clientId: 'the-host', name: 'Team' } },
    });
    try {
      await granted(upstream, new TestBrowser(), (browser, issuer, params) =>
        provider.signIn(browser, issuer, params),
      );
      expect(eventsOf(upstream).find((e) => e.type === 'token_issued')).toMatchObject({
        subject: 'ann@team.example',
        signedInWith: 'upstream',
      });
    } finally {
      await upstream.close();
      await provider.close();
    }
  });

  it('is not needed of a grant stored before grants said: it loads and refreshes', async () => {
    const grant = await granted(byToken, new TestBrowser());
    const { signedInWith: _, ...before } = JSON.parse((await store.get(grant.grantKey))!);
    await store.set(grant.grantKey, JSON.stringify(before), 3600);
    expect((await grant.refresh()).status).toBe(200);
    const refreshed = eventsOf(byToken).at(-1)!;
    expect(refreshed.type).toBe('token_refreshed');
    expect(refreshed.signedInWith).toBeUndefined();
  });
});

describe('what a sign-in by access token keeps of it', () => {
  it('is keyed by the seal key, never the bare hash, on the grant and the browser sign-in', async () => {
    const browsers = new Set(store.keys('session-sign-in:'));
    const grant = await granted(byToken, new TestBrowser());
    const kept = JSON.parse((await store.get(grant.grantKey))!).binding as string;
    expect(kept).toMatch(/^hmac:/);
    expect(kept).not.toContain(bareHash(bindingOf('alice')!));
    // Another server's seal key keeps another value for the same binding.
    const otherStore = new OpenStore();
    const other = await startAuthorizationServer({
      sealKey: randomBytes(32),
      store: otherStore,
      signIn: { accessToken: { userForToken: () => 'alice', bindingOf } },
    });
    const elsewhere = await granted(other, new TestBrowser());
    await other.close();
    const keptElsewhere = JSON.parse((await otherStore.get(elsewhere.grantKey))!).binding as string;
    expect(keptElsewhere).toMatch(/^hmac:/);
    expect(keptElsewhere).not.toBe(kept);

    const [browser] = store.keys('session-sign-in:').filter((k) => !browsers.has(k));
    const id = browser!.slice('session-sign-in:'.length);
    expect(JSON.parse((await store.get(browser!))!)).toEqual({ signedInWith: 'access-token', binding: kept });
    // Kept a minute past the sign-in it guards, so that the session is never read without it.
    expect(store.ttls.get(browser!)).toBe(SESSION_SECONDS + 60);
    expect(store.ttls.get(`session:${id}`)).toBe(SESSION_SECONDS);
    // The record a version before reads: a value it never finds right, so it asks to sign in again.
    expect(await store.get(`session-binding:${id}`)).toBe(kept);
    expect(store.ttls.get(`session-binding:${id}`)).toBe(SESSION_SECONDS + 60);
  });

  it('is still read where a version before kept the bare hash, on a grant and a browser sign-in', async () => {
    const browser = new TestBrowser();
    const grant = await granted(byToken, browser);
    const saved = JSON.parse((await store.get(grant.grantKey))!);
    await store.set(
      grant.grantKey,
      JSON.stringify({ ...saved, binding: bareHash(bindingOf('alice')!) }),
      3600,
    );
    const [signedIn] = store.keys('session-sign-in:').slice(-1);
    const id = signedIn!.slice('session-sign-in:'.length);
    await store.delete(signedIn!);
    await store.set(`session-binding:${id}`, bareHash(bindingOf('alice')!), 3600);
    const authorize = authorizationUrl(byToken.issuer, grant.clientId, REDIRECT);

    const first = await grant.refresh();
    expect(first.status).toBe(200);
    const rotated = ((await first.json()) as { refresh_token: string }).refresh_token;
    // Keyed as it moved on: the bare hash does not outlive the refresh that found it.
    expect(JSON.parse((await store.get(grant.grantKey))!).binding).toMatch(/^hmac:/);
    expect((await browser.open(authorize, byToken.issuer)).url.pathname).toBe('/auth/consent');
    // Its token replaced: both end (the rotated refresh token refused for its binding, not as reuse).
    tokens.set('alice', 'alice-new-token-0123456789');
    try {
      const refused = await grant.refresh(rotated);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await browser.open(authorize, byToken.issuer)).url.pathname).toBe('/auth/sign-in');
    } finally {
      tokens.set('alice', 'alice-token-0123456789');
    }
    // Refused, not revoked: with the token back, the same refresh token goes on.
    expect((await grant.refresh(rotated)).status).toBe(200);
  });
});

/**
 * The team's OpenID provider, as much of it as a sign-in reads: discovery, the token endpoint
 * answering any code with an ID token for ann@team.example (signed, with the nonce the
 * authorization request carried), and its keys.
 */
async function startProvider() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  let nonce = '';
  const provider = await startStatic((req, res, base) => {
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration')
      return json({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        jwks_uri: `${base}/jwks`,
        id_token_signing_alg_values_supported: ['ES256'],
      });
    if (req.url === '/jwks') return json({ keys: [jwk] });
    void new SignJWT({ email: 'ann@team.example', email_verified: true, nonce })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(base)
      .setAudience('the-host')
      .setSubject('ann-1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey)
      .then((idToken) => json({ access_token: 'at', token_type: 'Bearer', id_token: idToken }));
  });
  return {
    ...provider,
    /** The browser from the authorization request through the provider to the consent page. */
    async signIn(browser: TestBrowser, issuer: string, params: Record<string, string>) {
      const page = await browser.open(`${issuer}/auth/authorize?${new URLSearchParams(params)}`, issuer);
      const toProvider = await browser.request(upstreamLinkOf(page.text)!);
      const asked = new URL(toProvider.headers.get('location')!);
      nonce = asked.searchParams.get('nonce')!;
      const back = `${issuer}/auth/upstream/callback?${new URLSearchParams({ code: 'c', state: asked.searchParams.get('state')! })}`;
      return browser.open(back, issuer);
    },
  };
}
