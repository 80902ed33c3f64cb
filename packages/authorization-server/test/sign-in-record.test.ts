import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import {
  formFields,
  pkce,
  type Running,
  registerPublicClient,
  signInToConsent,
  startAuthorizationServer,
  TestBrowser,
  tokenRequest,
} from './support.js';

// What a sign-in by access token keeps of the token, on the browser's sign-in and its grants.
// That was a bare SHA-256 of the embedder's binding, which whoever reads a leaked state file can
// guess where the binding has little entropy; it is now an HMAC under a key derived from the
// seal key, which is not in the file.
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

/** Signs in through `browser`, consents, redeems the code: the tokens and the grant's record. */
async function granted(as: Running, browser: TestBrowser, toConsent = signInToConsent) {
  const clientId = await registerPublicClient(as.issuer, REDIRECT);
  const { verifier, challenge } = pkce();
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const page = await toConsent(browser, as.issuer, params);
  expect(page.url.pathname).toBe('/auth/consent');
  const { action, fields } = formFields(page.text);
  const allowed = await browser.post(new URL(action, as.issuer), { ...fields, decision: 'allow' });
  const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
  const res = await tokenRequest(as.issuer, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
  });
  expect(res.status).toBe(200);
  const issued = (await res.json()) as { access_token: string; refresh_token: string };
  const grantKey = `grant:${issued.refresh_token.split('.')[0]}`;
  const refresh = () =>
    tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: issued.refresh_token,
      client_id: clientId,
    });
  return { ...issued, clientId, grantKey, refresh, params };
}

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
    expect(JSON.parse((await store.get(browser!))!)).toEqual({ binding: kept });
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
    const authorize = `${byToken.issuer}/auth/authorize?${new URLSearchParams({ ...grant.params, ...pkceParams() })}`;

    expect((await grant.refresh()).status).toBe(200);
    expect((await browser.open(authorize, byToken.issuer)).url.pathname).toBe('/auth/consent');
    // Its token replaced: both end.
    tokens.set('alice', 'alice-new-token-0123456789');
    try {
      const refused = await grant.refresh();
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await browser.open(authorize, byToken.issuer)).url.pathname).toBe('/auth/sign-in');
    } finally {
      tokens.set('alice', 'alice-token-0123456789');
    }
  });
});

function pkceParams() {
  return { code_challenge: pkce().challenge, code_challenge_method: 'S256' };
}
