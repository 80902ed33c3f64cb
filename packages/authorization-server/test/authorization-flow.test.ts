import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedCode,
  authorizeInBrowser,
  formFields,
  pkce,
  type Running,
  registerPublicClient,
  ShortOfReplicas,
  signInToConsent,
  startAuthorizationServer,
  TestBrowser,
  tokenRequest,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

let as: Running;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as.close());

/** A registered public client through consent: its code, verifier and the redirect it came to. */
function codeFor(clientId: string, redirectUri = REDIRECT, extra: Record<string, string> = {}) {
  return authorizedCode(as.issuer, clientId, redirectUri, {
    state: 'the-state',
    resource: as.resource,
    ...extra,
  });
}

/** An authorization request of a registered client, PKCE and all, that needs no code back. */
function authorizeRequest(clientId: string): Record<string, string> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  };
}

async function tokensFor(clientId: string) {
  const { code, verifier } = await codeFor(clientId);
  const res = await tokenRequest(as.issuer, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: as.resource,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    access_token: string;
    refresh_token: string;
    scope: string;
    expires_in: number;
  };
}

describe('metadata (RFC 8414)', () => {
  it('names the issuer, S256 only, client id metadata documents and the iss parameter', async () => {
    const res = await fetch(`${as.issuer}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    // Cached a while, and said so once: no HTTP/1.0 no-cache beside it.
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('pragma')).toBeNull();
    const keys = await fetch(`${as.issuer}/auth/jwks`);
    expect([keys.headers.get('cache-control'), keys.headers.get('pragma')]).toEqual([
      'public, max-age=300',
      null,
    ]);
    const metadata = (await res.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: as.issuer,
      authorization_endpoint: `${as.issuer}/auth/authorize`,
      token_endpoint: `${as.issuer}/auth/token`,
      registration_endpoint: `${as.issuer}/auth/register`,
      revocation_endpoint: `${as.issuer}/auth/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      scopes_supported: ['tools:read', 'tools:write'],
    });
    const jwks = (await (await fetch(String(metadata.jwks_uri))).json()) as {
      keys: { d?: string; kty: string }[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});

describe('authorization code with PKCE', () => {
  it('signs the person in, asks consent, and redirects with code, state and iss; the token names the user and the resource', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT, 'Flow client');
    const { code, landed } = await codeFor(clientId);
    expect(landed.origin + landed.pathname).toBe(REDIRECT);
    expect(landed.searchParams.get('state')).toBe('the-state');
    expect(landed.searchParams.get('iss')).toBe(as.issuer);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const tokens = await tokensFor(clientId);
    expect(tokens.scope).toBe('tools:read');
    const checked = await as.as.verify(tokens.access_token);
    expect(checked).toMatchObject({
      ok: true,
      token: { subject: 'alice', clientId, scopes: ['tools:read'], audience: as.resource },
    });
    const [, payload] = tokens.access_token.split('.');
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toMatchObject({
      aud: as.resource,
      iss: as.issuer,
      sub: 'alice',
    });
  });

  it('accepts a loopback redirect URI on another port (RFC 8252) but nothing else that differs', async () => {
    const clientId = await registerPublicClient(as.issuer, 'http://127.0.0.1/callback');
    const { landed } = await codeFor(clientId, 'http://127.0.0.1:45678/callback');
    expect(landed.host).toBe('127.0.0.1:45678');
    for (const other of [
      'http://127.0.0.1:45678/other',
      'http://localhost:45678/callback',
      'https://127.0.0.1/callback',
    ]) {
      const res = await new TestBrowser().request(
        `${as.issuer}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: other, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('answers an error at the redirect URI, with iss, for a request without PKCE, with plain PKCE or another resource', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const base = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 's1' };
    const cases: [Record<string, string>, string][] = [
      [{}, 'invalid_request'],
      [{ code_challenge: pkce().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
      [
        {
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          resource: 'https://other.example/mcp',
        },
        'invalid_target',
      ],
      [{ code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'admin' }, 'invalid_scope'],
    ];
    for (const [extra, error] of cases) {
      const res = await new TestBrowser().request(
        `${as.issuer}/auth/authorize?${new URLSearchParams({ ...base, ...extra })}`,
      );
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('s1');
      expect(location.searchParams.get('iss')).toBe(as.issuer);
    }
  });

  it('never redirects to a URI the client did not register, nor for an unknown client (no open redirect)', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    for (const [client, redirectUri] of [
      [clientId, 'https://evil.example/steal'],
      ['no-such-client', 'https://evil.example/steal'],
      [clientId, `${REDIRECT}?next=https://evil.example`],
    ] as const) {
      const res = await new TestBrowser().request(
        `${as.issuer}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client, redirect_uri: redirectUri, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).not.toContain('evil.example');
    }
  });

  it('refuses a wrong access token at sign-in, and a denied consent gives access_denied', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const browser = new TestBrowser();
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 'x',
    };
    await expect(
      authorizeInBrowser(browser, as.issuer, params, { token: 'not-a-token-of-anyone' }),
    ).rejects.toThrow(/sign-in failed: 401/);
    const denied = await authorizeInBrowser(new TestBrowser(), as.issuer, params, { decision: 'deny' });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('iss')).toBe(as.issuer);
  });
});

describe('the token endpoint refuses and changes nothing', () => {
  it('a second use of a code: invalid_grant, and the tokens of the first use are revoked', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const { code, verifier } = await codeFor(clientId);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    };
    const first = await tokenRequest(as.issuer, fields);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const tokens = (await first.json()) as { access_token: string; refresh_token: string };
    const second = await tokenRequest(as.issuer, fields);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: 'invalid_grant' });
    // Let the verifier's short grant cache lapse.
    await new Promise((r) => setTimeout(r, 5_100));
    expect(await as.as.verify(tokens.access_token)).toMatchObject({
      ok: false,
      rejection: { kind: 'invalid' },
    });
    const refresh = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
  });

  it('a code for another client, another redirect URI, without or with a wrong verifier', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const otherClient = await registerPublicClient(as.issuer, REDIRECT);
    const cases: [(code: string, verifier: string) => Record<string, string>, string][] = [
      [
        (code, verifier) => ({
          code,
          code_verifier: verifier,
          client_id: otherClient,
          redirect_uri: REDIRECT,
        }),
        'invalid_grant',
      ],
      [
        (code, verifier) => ({
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:7777/other',
        }),
        'invalid_grant',
      ],
      [(code) => ({ code, client_id: clientId, redirect_uri: REDIRECT }), 'invalid_request'],
      [
        (code) => ({ code, code_verifier: pkce().verifier, client_id: clientId, redirect_uri: REDIRECT }),
        'invalid_grant',
      ],
    ];
    for (const [fields, error] of cases) {
      const { code, verifier } = await codeFor(clientId);
      const res = await tokenRequest(as.issuer, {
        grant_type: 'authorization_code',
        ...fields(code, verifier),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error });
      if (error === 'invalid_grant') {
        // Spent by the failed attempt: the right verifier no longer redeems it.
        const retry = await tokenRequest(as.issuer, {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: REDIRECT,
        });
        expect(retry.status).toBe(400);
      }
    }
  });

  it('rotates refresh tokens, and a reused one revokes the grant', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const first = await tokensFor(clientId);
    const rotated = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await as.as.verify(second.access_token)).toMatchObject({ ok: true });
    const reused = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    const afterReuse = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token,
      client_id: clientId,
    });
    expect(afterReuse.status).toBe(400);
    await new Promise((r) => setTimeout(r, 5_100));
    expect(await as.as.verify(second.access_token)).toMatchObject({ ok: false });
  });

  it('a refresh refused for its scope or resource spends nothing: the same refresh token then works', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const tokens = await tokensFor(clientId);
    const refresh = (extra: Record<string, string>) =>
      tokenRequest(as.issuer, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
        ...extra,
      });
    const beyond = await refresh({ scope: 'tools:read tools:write' });
    expect(beyond.status).toBe(400);
    expect(await beyond.json()).toMatchObject({ error: 'invalid_scope' });
    const elsewhere = await refresh({ resource: 'https://other.example/mcp' });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_target' });
    // A scope of spaces alone names none: the grant's scopes, not a token for nothing.
    const blank = await refresh({ scope: '  ' });
    expect(blank.status).toBe(200);
    const renewed = (await blank.json()) as { scope: string; refresh_token: string };
    expect(renewed.scope).toBe('tools:read');
    const fine = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: renewed.refresh_token,
      client_id: clientId,
    });
    expect(fine.status).toBe(200);
    expect(await fine.json()).toMatchObject({ scope: 'tools:read' });
  });

  it('malformed Basic credentials are invalid_client (401), not a server error', async () => {
    const res = await tokenRequest(
      as.issuer,
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { authorization: `Basic ${Buffer.from('%zz:secret').toString('base64')}` },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('a token request over 64 KiB is invalid_request (413), and one that is not a form is invalid_request (400)', async () => {
    const huge = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: 'x'.repeat(64 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({
      error: 'invalid_request',
      error_description: 'The body is larger than 65536 bytes',
    });
    const json = await fetch(`${as.issuer}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"refresh_token"}',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('revokes a grant by its refresh token (RFC 7009), and answers 200 for an unknown token', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const tokens = await tokensFor(clientId);
    const revoke = (token: string) =>
      fetch(`${as.issuer}/auth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: clientId }).toString(),
      });
    expect((await revoke('no-such-token')).status).toBe(200);
    const without = await revoke('');
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({ error: 'invalid_request' });
    expect((await revoke(tokens.refresh_token)).status).toBe(200);
    const refresh = await tokenRequest(as.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
    expect(as.events.some((e) => e.type === 'token_revoked')).toBe(true);
  });

  it('a confidential client must present its secret', async () => {
    const res = await fetch(`${as.issuer}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }),
    });
    const { client_id, client_secret } = (await res.json()) as { client_id: string; client_secret: string };
    const { code, verifier } = await codeFor(client_id);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    };
    const wrong = await tokenRequest(as.issuer, fields, {
      authorization: `Basic ${Buffer.from(`${client_id}:wrong`).toString('base64')}`,
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    // The wrong secret did not spend the code.
    const right = await tokenRequest(as.issuer, fields, {
      authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`,
    });
    expect(right.status).toBe(200);
  });
});

describe('sign-in with an access token', () => {
  it('bounds failed attempts per address, and a success in between does not wipe the count', async () => {
    // A server of its own: the count is per address, and every test here comes from 127.0.0.1.
    const own = await startAuthorizationServer();
    try {
      const clientId = await registerPublicClient(own.issuer, REDIRECT);
      const signInForm = async () => {
        const browser = new TestBrowser();
        const authorize = new URLSearchParams(authorizeRequest(clientId));
        const page = await browser.open(`${own.issuer}/auth/authorize?${authorize}`, own.issuer);
        const { action, fields } = formFields(page.text);
        return async (token: string) =>
          (await browser.post(new URL(action, own.issuer), { ...fields, access_token: token })).status;
      };
      const first = await signInForm();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await first('guess-0123456789'));
      // An insider's own token between guesses must not buy more guesses at others'.
      statuses.push(await first('alice-token-0123456789'));
      const second = await signInForm();
      for (let i = 0; i < 6; i++) statuses.push(await second('guess-0123456789'));
      expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 303]);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await own.close();
    }
  });
});

describe('the consent page', () => {
  it('is never framed, and names the client as unverified with the scopes', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT, 'Frame <b>client</b>');
    const page = await signInToConsent(new TestBrowser(), as.issuer, {
      ...authorizeRequest(clientId),
      scope: 'tools:read tools:write',
    });
    expect(page.res.headers.get('x-frame-options')).toBe('DENY');
    expect(page.res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('Frame &lt;b&gt;client&lt;/b&gt;');
    expect(page.text).toContain('unverified');
    expect(page.text).toContain('tools:write');
    expect(page.text).toContain('alice');
  });

  it('refuses a consent posted cross-site or from another browser, and issues no code', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const browser = new TestBrowser();
    const page = await signInToConsent(browser, as.issuer, authorizeRequest(clientId));
    const consent = formFields(page.text);
    const action = new URL(consent.action, as.issuer);
    const fields = { ...consent.fields, decision: 'allow' };
    const crossSite = await browser.post(action, fields, {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('location')).toBeNull();
    // Another browser (no cookie) with the page's fields.
    const stranger = await new TestBrowser().post(action, fields);
    expect(stranger.status).toBe(403);
    const forged = await browser.post(action, { ...fields, csrf: 'forged' });
    expect(forged.status).toBe(403);
    // The request is still pending: its own browser can still answer it.
    const allowed = await browser.post(action, fields);
    expect(allowed.status).toBe(303);
    expect(new URL(allowed.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const again = await browser.post(action, fields);
    expect(again.status).toBe(400);
  });
});

describe('a store that cannot take the answer durably (short of its replicas)', () => {
  it('keeps the consent pending, and the person allows again; the code then redeems once', async () => {
    const store = new ShortOfReplicas();
    const own = await startAuthorizationServer({ store });
    try {
      const clientId = await registerPublicClient(own.issuer, REDIRECT);
      const browser = new TestBrowser();
      const { challenge, verifier } = pkce();
      const page = await signInToConsent(browser, own.issuer, {
        ...authorizeRequest(clientId),
        code_challenge: challenge,
      });
      const consent = formFields(page.text);
      const action = new URL(consent.action, own.issuer);
      const fields = { ...consent.fields, decision: 'allow' };
      store.short = true;
      const failed = await browser.post(action, fields);
      store.short = false;
      expect(failed.status).toBe(500);
      expect(failed.headers.get('location')).toBeNull();

      const allowed = await browser.post(action, fields);
      expect(allowed.status).toBe(303);
      const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
      const redeem = () =>
        tokenRequest(own.issuer, {
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: REDIRECT,
        });
      store.short = true;
      expect((await redeem()).status).toBe(500);
      store.short = false;
      const tokens = await redeem();
      expect(tokens.status).toBe(200);
      const { refresh_token } = (await tokens.json()) as { refresh_token: string };
      const refresh = () =>
        tokenRequest(own.issuer, { grant_type: 'refresh_token', refresh_token, client_id: clientId });
      store.short = true;
      expect((await refresh()).status).toBe(500);
      store.short = false;
      expect((await refresh()).status).toBe(200);
      expect((await redeem()).status).toBe(400);
    } finally {
      await own.close();
    }
  });
});
