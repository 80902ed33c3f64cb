import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import {
  consentWithAccessToken,
  redeemCode,
  registerPublicClient,
  tokenRequest,
} from './own-authorization-flow.js';
import { ALICE_ACCESS_TOKEN, fixtureApp, jsonLines } from './support.js';

const running: { host: Host; server: HttpServerHandle }[] = [];
afterEach(async () => {
  for (const { host, server } of running.splice(0)) {
    await server.close();
    await host.close();
  }
});

async function start(
  authorization: object | undefined,
  env: Record<string, string> = {},
  more: object = {},
  accessTokens = new AccessTokens({ alice: ALICE_ACCESS_TOKEN }),
) {
  const host = await createHost(
    { plugins: ['toolhost-plugin-echo'], ...(authorization ? { http: { authorization } } : {}), ...more },
    { configDir: fixtureApp, env },
  );
  const server = await serveHttp(host, { port: 0, accessTokens });
  running.push({ host, server });
  return { host, server, origin: new URL(server.url).origin };
}

/** Registers a client, signs alice in with her access token, consents; the tokens. */
async function signInAndConsent(origin: string) {
  const clientId = await registerPublicClient(origin);
  const { landed, verifier, page } = await consentWithAccessToken(origin, clientId, ALICE_ACCESS_TOKEN);
  expect(page).toContain('Host test');
  expect(landed.searchParams.get('iss')).toBe(origin);
  const token = await redeemCode(origin, clientId, landed, verifier);
  expect(token.status).toBe(200);
  return (await token.json()) as { access_token: string; refresh_token: string };
}

describe("the host's own authorization server", () => {
  it('is not served unless configured', async () => {
    const { origin } = await start(undefined);
    expect((await fetch(`${origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${origin}/auth/authorize`)).status).toBe(404);
  });

  it('refuses to start when nobody could sign in', async () => {
    const host = await createHost(
      { plugins: ['toolhost-plugin-echo'], http: { authorization: { mode: 'host' } } },
      { configDir: fixtureApp },
    );
    try {
      await expect(serveHttp(host, { port: 0 })).rejects.toThrow(/nobody could sign in.*signIn\.oidc/);
    } finally {
      await host.close();
    }
  });

  it('serves its metadata under the URL the host listens at, and issues tokens for the MCP endpoint as the user', async () => {
    const { server, origin } = await start({ mode: 'host' });
    const metadata = (await (
      await fetch(`${origin}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string>;
    expect(metadata.issuer).toBe(origin);
    expect(metadata.token_endpoint).toBe(`${origin}/auth/token`);
    const tokens = await signInAndConsent(origin);
    const { payload } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(metadata.jwks_uri!)),
      {
        issuer: origin,
        audience: server.url,
      },
    );
    expect(payload.sub).toBe('alice');
  });

  it('writes sign-in, consent, token issue, refresh, revocation and each refusal to the audit log', async () => {
    const auditFile = join(mkdtempSync(join(tmpdir(), 'toolhost-as-audit-')), 'audit.jsonl');
    const { origin } = await start({ mode: 'host' }, {}, { audit: { log: auditFile } });
    const clientId = await registerPublicClient(origin);
    const { landed, verifier } = await consentWithAccessToken(origin, clientId, ALICE_ACCESS_TOKEN);
    const tokens = (await (await redeemCode(origin, clientId, landed, verifier)).json()) as {
      refresh_token: string;
    };
    // The same code again: refused, and the grant it produced revoked.
    expect((await redeemCode(origin, clientId, landed, verifier)).status).toBe(400);
    const refreshed = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    const again = await consentWithAccessToken(origin, clientId, ALICE_ACCESS_TOKEN);
    const second = (await (await redeemCode(origin, clientId, again.landed, again.verifier)).json()) as {
      refresh_token: string;
    };
    const rotated = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const { refresh_token } = (await rotated.json()) as { refresh_token: string };
    const revoked = await fetch(`${origin}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refresh_token, client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    const lines = jsonLines(auditFile).filter((l) => l.event === 'authorization');
    const outcomes = lines.map((l) => String(l.outcome));
    for (const outcome of [
      'client_registered',
      'sign_in',
      'consent',
      'token_issued',
      'token_refreshed',
      'token_revoked',
    ])
      expect(outcomes, outcome).toContain(outcome);
    expect(
      outcomes.some((o) => o.startsWith('refused:invalid_grant')),
      outcomes.join(' '),
    ).toBe(true);
    expect(
      lines
        .filter((l) => l.outcome === 'token_issued')
        .every((l) => l.user === 'alice' && l.client === clientId),
    ).toBe(true);
    // How each grant was made, for an auditor to tell a pasted token from the team's sign-in.
    const made = lines.filter((l) =>
      ['sign_in', 'consent', 'token_issued', 'token_refreshed'].includes(String(l.outcome)),
    );
    expect(made.map((l) => l.signedInWith)).toEqual(made.map(() => 'access-token'));
    // What an event does not say is not in its line.
    expect(lines.find((l) => l.outcome === 'client_registered')).not.toHaveProperty('user');
    // No secret of the flow reaches the log.
    const text = JSON.stringify(lines);
    for (const secret of [ALICE_ACCESS_TOKEN, tokens.refresh_token, refresh_token, verifier])
      expect(text).not.toContain(secret);
  });

  it('keeps its signing key and grants in the data directory, sealed, across a restart', async () => {
    const env = {
      TOOLHOST_TOKEN_KEY: 'a-test-token-key-0123456789',
      TOOLHOST_DATA_DIR: mkdtempSync(join(tmpdir(), 'toolhost-as-')),
    };
    const first = await start({ mode: 'host' }, env);
    const tokens = await signInAndConsent(first.origin);
    const { host, server } = running.pop()!;
    await server.close();
    await host.close();
    const second = await start({ mode: 'host' }, env);
    const refreshed = await fetch(`${second.origin}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: (
          JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
            client_id: string;
          }
        ).client_id,
      }).toString(),
    });
    // The grant survived; the port (and so the issuer) changed, which a client sees as a new server.
    expect(refreshed.status).toBe(200);
    const saved = readFileSync(join(env.TOOLHOST_DATA_DIR, 'authorization-server.json'), 'utf8');
    expect(saved).toContain('sealed:');
    expect(saved).not.toContain(tokens.refresh_token);
  });

  it("ends a grant made with an access token once the operator replaces that token (a leak's fix), across a restart", async () => {
    const env = {
      TOOLHOST_TOKEN_KEY: 'a-test-token-key-0123456789',
      TOOLHOST_DATA_DIR: mkdtempSync(join(tmpdir(), 'toolhost-as-rotated-')),
    };
    const first = await start({ mode: 'host' }, env);
    const clientId = await registerPublicClient(first.origin);
    const { landed, verifier } = await consentWithAccessToken(first.origin, clientId, ALICE_ACCESS_TOKEN);
    const tokens = (await (await redeemCode(first.origin, clientId, landed, verifier)).json()) as {
      refresh_token: string;
    };
    const { host, server } = running.pop()!;
    await server.close();
    await host.close();
    const rotated = new AccessTokens({ alice: 'alice-replacement-token-0123456789' });
    const second = await start({ mode: 'host' }, env, {}, rotated);
    const refreshed = await tokenRequest(second.origin, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it("two hosts on one data directory honour each other's grants and keep each other's registrations", async () => {
    const env = {
      TOOLHOST_TOKEN_KEY: 'a-test-token-key-0123456789',
      TOOLHOST_DATA_DIR: mkdtempSync(join(tmpdir(), 'toolhost-as-shared-')),
    };
    // Both started before either wrote anything but its signing key.
    const [a, b] = [(await start({ mode: 'host' }, env)).origin, (await start({ mode: 'host' }, env)).origin];
    const clientId = await registerPublicClient(a);
    const { landed, verifier } = await consentWithAccessToken(a, clientId, ALICE_ACCESS_TOKEN);
    const tokens = (await (await redeemCode(a, clientId, landed, verifier)).json()) as {
      refresh_token: string;
    };
    const other = await registerPublicClient(b);
    // The grant made on one is refreshed on the other.
    const refreshed = await tokenRequest(b, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const saved = JSON.parse(
      readFileSync(join(env.TOOLHOST_DATA_DIR, 'authorization-server.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(Object.keys(saved)).toEqual(expect.arrayContaining([`client:${clientId}`, `client:${other}`]));
    // One signing key between them: a token the one issues verifies against the other's keys.
    const keys = await Promise.all([a, b].map(async (origin) => (await fetch(`${origin}/auth/jwks`)).json()));
    expect(keys[0]).toEqual(keys[1]);
  });
});
