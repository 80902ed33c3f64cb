import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import {
  authorizedCode,
  pkce,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  startStatic,
  TestBrowser,
  tokenRequest,
} from './support.js';

// The grants a client registered for are the grants it gets (RFC 6749 §5.2, RFC 7591 §2):
// a refresh token only to a client whose grant_types hold refresh_token, and each grant
// refused as unauthorized_client to a client not registered for it.

const REDIRECT = 'http://127.0.0.1:7777/callback';

let as: Running;
const store = new MemoryStateStore();
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  as = await startAuthorizationServer({ store });
  closers.push(() => as.close());
});
afterAll(async () => {
  for (const close of closers) await close();
});

function register(metadata: Record<string, unknown>) {
  return fetch(`${as.issuer}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  });
}

/** The client through sign-in and consent, then its code redeemed: the token endpoint's answer. */
async function signInAndRedeem(clientId: string): Promise<Response> {
  const { code, verifier, landed } = await authorizedCode(as.issuer, clientId, REDIRECT);
  expect(landed.searchParams.get('error')).toBeNull();
  return tokenRequest(as.issuer, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
  });
}

function refresh(clientId: string, refreshToken: string) {
  return tokenRequest(as.issuer, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

describe('registration metadata (RFC 7591)', () => {
  it('defaults grant_types to authorization_code and response_types to code, and answers what it registered', async () => {
    const res = await register({});
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      grant_types: ['authorization_code'],
      response_types: ['code'],
    });
  });

  it('keeps grant_types and response_types consistent: the code response type brings the authorization code grant', async () => {
    const cases: [Record<string, unknown>, string[], string[]][] = [
      [
        { grant_types: ['authorization_code', 'refresh_token'] },
        ['authorization_code', 'refresh_token'],
        ['code'],
      ],
      [{ grant_types: ['refresh_token'] }, ['authorization_code', 'refresh_token'], ['code']],
      [{ grant_types: ['refresh_token'], response_types: [] }, ['refresh_token'], []],
      [{ grant_types: ['authorization_code'], response_types: [] }, [], []],
    ];
    for (const [metadata, grantTypes, responseTypes] of cases) {
      const res = await register(metadata);
      expect(res.status, JSON.stringify(metadata)).toBe(201);
      expect(await res.json()).toMatchObject({ grant_types: grantTypes, response_types: responseTypes });
    }
  });

  it('refuses grant or response types this server does not issue, naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ grant_types: ['authorization_code', 'client_credentials'] }, /grant_types may hold only/],
      [{ grant_types: 'authorization_code' }, /grant_types must be an array/],
      [{ response_types: ['code', 'token'] }, /response_types may hold only code/],
    ];
    for (const [metadata, message] of cases) {
      const res = await register(metadata);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_client_metadata');
      expect(body.error_description).toMatch(message);
    }
  });
});

describe('the token endpoint honours the registered grant types', () => {
  it('issues a refresh token to a client registered for refresh_token (as the SDK registers), and rotates it', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT, 'SDK-like client');
    const issued = await signInAndRedeem(clientId);
    expect(issued.status).toBe(200);
    const tokens = (await issued.json()) as { access_token: string; refresh_token?: string };
    // `<grant id>.<generation>.<tag>.<secret>`: the token names its grant, so a spent one is known
    // without a record of it, and its generation, so that one spent however long ago is.
    const format = (generation: number) =>
      new RegExp(`^[0-9a-f-]{36}\\.${generation}\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}$`);
    expect(tokens.refresh_token).toMatch(format(0));
    const refreshed = await refresh(clientId, tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { refresh_token?: string };
    expect(next.refresh_token).toMatch(format(1));
    expect(next.refresh_token!.split('.')[0]).toBe(tokens.refresh_token!.split('.')[0]);
  });

  it('issues no refresh token to a client registered without refresh_token, and refuses it the refresh grant', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT, 'Code-only client', {
      grant_types: ['authorization_code'],
    });
    const issued = await signInAndRedeem(clientId);
    expect(issued.status).toBe(200);
    const tokens = (await issued.json()) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'tools:read' });
    expect(tokens).not.toHaveProperty('refresh_token');
    // The access token is good: its grant lives as long as it does.
    expect(await as.as.verify(String(tokens.access_token))).toMatchObject({
      ok: true,
      token: { subject: 'alice', clientId },
    });
    // A refresh token of a client that may refresh, presented by this one: refused for the
    // grant type before the token is looked at, so its holder's grant is untouched.
    const other = await registerPublicClient(as.issuer, REDIRECT);
    const othersTokens = (await (await signInAndRedeem(other)).json()) as { refresh_token: string };
    const refused = await refresh(clientId, othersTokens.refresh_token);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toMatchObject({
      error: 'unauthorized_client',
      error_description: expect.stringContaining('refresh_token'),
    });
    expect((await refresh(other, othersTokens.refresh_token)).status).toBe(200);
    expect(as.events).toContainEqual(
      expect.objectContaining({ type: 'refused', error: 'unauthorized_client' }),
    );
  });

  it('refuses the authorization code grant, at both endpoints, to a client not registered for it, and spends no code', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT, 'Refresh-only client', {
      grant_types: ['refresh_token'],
      response_types: [],
    });
    const authorize = await new TestBrowser().request(
      `${as.issuer}/auth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        state: 'st',
      })}`,
    );
    expect(authorize.status).toBe(303);
    const location = new URL(authorize.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('unauthorized_client');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.get('iss')).toBe(as.issuer);
    // Another client's code, presented by this one: refused for the grant type, and not spent.
    const owner = await registerPublicClient(as.issuer, REDIRECT);
    const { code, verifier } = await authorizedCode(as.issuer, owner, REDIRECT);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    };
    const refused = await tokenRequest(as.issuer, { ...fields, client_id: clientId });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: 'unauthorized_client',
      error_description: expect.stringContaining('authorization_code'),
    });
    expect((await tokenRequest(as.issuer, { ...fields, client_id: owner })).status).toBe(200);
  });

  it('answers a grant type it does not know as unsupported_grant_type, whatever the client registered', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const res = await tokenRequest(as.issuer, { grant_type: 'client_credentials', client_id: clientId });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('keeps giving a client registered before grant types were kept both grants', async () => {
    // As such a client's record was stored: no grant_types.
    const clientId = 'registered-earlier-1';
    await store.set(
      `client:${clientId}`,
      JSON.stringify({
        clientId,
        redirectUris: [REDIRECT],
        tokenEndpointAuthMethod: 'none',
        source: 'registration',
        clientName: 'Earlier client',
      }),
      3600,
    );
    const issued = await signInAndRedeem(clientId);
    expect(issued.status).toBe(200);
    const tokens = (await issued.json()) as { refresh_token?: string };
    expect(tokens.refresh_token).toBeDefined();
    expect((await refresh(clientId, tokens.refresh_token!)).status).toBe(200);
  });
});

describe('client id metadata documents', () => {
  async function documentClient(document: Record<string, unknown>): Promise<string> {
    const served = await startStatic((_req, res, base) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: `${base}/client.json`,
          client_name: 'Doc client',
          redirect_uris: [REDIRECT],
          ...document,
        }),
      );
    });
    closers.push(() => served.close());
    return `${served.base}/client.json`;
  }

  it('give a refresh token only where the document lists refresh_token, and ignore grants not issued here', async () => {
    const refreshing = await documentClient({
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    });
    const withRefresh = (await (await signInAndRedeem(refreshing)).json()) as { refresh_token?: string };
    expect(withRefresh.refresh_token).toBeDefined();
    expect((await refresh(refreshing, withRefresh.refresh_token!)).status).toBe(200);

    const plain = await documentClient({});
    const issued = await signInAndRedeem(plain);
    expect(issued.status).toBe(200);
    expect(await issued.json()).not.toHaveProperty('refresh_token');
    const refused = await refresh(plain, 'any-refresh-token');
    expect(await refused.json()).toMatchObject({ error: 'unauthorized_client' });
  });
});
