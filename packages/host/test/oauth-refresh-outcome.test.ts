import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { echoAuthProviders, type FakeOAuthServer, fakeClient, storeAuthorized } from './fake-oauth-server.js';
import { ALICE_ACCESS_TOKEN as ALICE, capturedLogger, fixtureApp, tokenStoreOf } from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

// A vendor's token endpoint that is slow to answer a refresh, or never answers it, with calls
// from a real MCP client: what the endpoint received (each refresh token, how many times) and
// what the person got. The fake endpoint rotates refresh tokens and, as OAuth 2.1 asks, takes
// a spent one presented again for a stolen one: it revokes the grant.

let vendor: VendorFakes;
let oauth: FakeOAuthServer;
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
let client: Client;
const log = capturedLogger('info');

beforeAll(async () => {
  vendor = await startVendorFakes();
  ({ oauth, upstream } = vendor);
});
afterAll(() => vendor.close());
beforeEach(async () => {
  vendor.reset();
  log.clear();
  const logger = log.logger;
  host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      auth: {
        dataDir: mkdtempSync(join(tmpdir(), 'toolhost-refresh-')),
        providers: echoAuthProviders(oauth),
        // Calls wait 1 s for a refresh, then are told to try again; the refresh goes on.
        tokenRequestTimeoutSeconds: 1,
      },
    },
    {
      configDir: fixtureApp,
      env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret, TOOLHOST_TOKEN_KEY: 'refresh-outcome-key' },
      logger,
    },
  );
  server = await serveHttp(host, { accessTokens: new AccessTokens({ alice: ALICE }), logger });
  client = new Client({ name: 'refresh-outcome-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    }),
  );
});
afterEach(async () => {
  oauth.beforeAnswer = undefined;
  oauth.afterRefreshing = undefined;
  await client.close().catch(() => {});
  await server.close();
  await host.close();
});

/** Alice's token as an authorization stored it, expiring at `expiresAt`. */
const authorizeAlice = (expiresAt: number) => storeAuthorized(oauth, tokenStoreOf(host), 'alice', expiresAt);

type ToolErrorInfo = { code: string; message: string; retryable?: boolean };
const errorOf = (r: CallToolResult) =>
  r.isError ? (r.structuredContent as { error: ToolErrorInfo }).error : undefined;
const getItem = (id: string) =>
  client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } }) as Promise<CallToolResult>;
/** How many times the token endpoint received `refreshToken`. */
const sent = (refreshToken: string | undefined) =>
  oauth.grants.filter((g) => g.refresh_token === refreshToken).length;

/** Calls until one succeeds or is refused for good (not told to retry), at most `ms`. */
async function callUntilSettled(ms: number): Promise<{ last: CallToolResult; retried: ToolErrorInfo[] }> {
  const retried: ToolErrorInfo[] = [];
  const deadline = Date.now() + ms;
  for (let i = 0; ; i += 1) {
    const last = await getItem(`i${i}`);
    const error = errorOf(last);
    if (!error?.retryable || Date.now() > deadline) return { last, retried };
    retried.push(error);
    await sleep(300);
  }
}

describe('OAuth refresh against a token endpoint that stalls (10–30 s in the field; 3 s here, calls waiting 1 s)', () => {
  for (const mode of ['before', 'after'] as const)
    it(`sends the refresh token once and the calls succeed once it answers (it stalls ${mode} refreshing)`, async () => {
      let answer!: () => void;
      const stalled = new Promise<void>((r) => {
        answer = r;
      });
      if (mode === 'before')
        oauth.beforeAnswer = (grant) => (grant === 'refresh_token' ? stalled : Promise.resolve());
      else oauth.afterRefreshing = () => stalled;
      const release = setTimeout(answer, 3000);
      try {
        const old = await authorizeAlice(Date.now() - 1000);
        const { last, retried } = await callUntilSettled(15_000);
        expect(errorOf(last)).toBeUndefined();
        // While the vendor was thinking, calls were told to try again, never to sign in again.
        for (const e of retried) expect(e).toMatchObject({ code: 'upstream_unavailable', retryable: true });
        expect(sent(old.refreshToken)).toBe(1);
        expect(oauth.grants).toHaveLength(1);
        expect(oauth.reuses).toEqual([]);
        const stored = (await tokenStoreOf(host).get('echo-auth', 'alice'))!;
        expect(stored.refreshToken).not.toBe(old.refreshToken);
        expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([
          `Bearer ${stored.accessToken}`,
        ]);
      } finally {
        clearTimeout(release);
        answer();
      }
    }, 60_000);
});

describe('OAuth refresh whose answer never comes (the connection drops after the request was sent)', () => {
  for (const mode of ['before', 'after'] as const)
    it(`never sends the refresh token again: the access token serves while good, then the person is asked to sign in, told why (dropped ${mode} refreshing)`, async () => {
      const drop = async () => {
        throw new Error('connection dropped');
      };
      if (mode === 'before')
        oauth.beforeAnswer = (grant) => (grant === 'refresh_token' ? drop() : Promise.resolve());
      else oauth.afterRefreshing = drop;
      // Within the refresh margin (60 s) but good for 3 s more.
      const old = await authorizeAlice(Date.now() + 3000);
      const during = await Promise.all([getItem('a'), getItem('b')]);
      // Told to try again, or served with the access token that is still good.
      for (const r of during)
        if (r.isError) expect(errorOf(r)).toMatchObject({ code: 'upstream_unavailable', retryable: true });
      expect(errorOf(await getItem('c'))).toBeUndefined();
      expect(sent(old.refreshToken)).toBe(1);
      expect(log.lines()).toContain('token refresh sent but not answered');

      await sleep(Math.max(0, old.expiresAt! - Date.now()) + 100);
      const after = await getItem('d');
      expect(errorOf(after)).toMatchObject({ code: 'authorization_required' });
      expect(errorOf(after)!.message).toContain('got no answer');
      expect(sent(old.refreshToken)).toBe(1);
      expect(oauth.grants).toHaveLength(1);
      // The vendor saw no reuse, so it revoked nothing of the person's.
      expect(oauth.reuses).toEqual([]);
      expect(new Set(upstream.requests.map((r) => r.headers.authorization))).toEqual(
        new Set([`Bearer ${old.accessToken}`]),
      );
      expect(await tokenStoreOf(host).get('echo-auth', 'alice')).toBeUndefined();
      expect(log.lines()).toContain('the token is deleted, the user must authorize again');
      expect(log.lines()).not.toContain(old.refreshToken);
      expect(log.lines()).not.toContain(old.accessToken);
    }, 60_000);

  it('sends it again at a vendor that keeps refresh tokens (a refresh answered with the same one)', async () => {
    oauth.rotateRefreshTokens = false;
    const old = await authorizeAlice(Date.now() - 1000);
    expect(errorOf(await getItem('first'))).toBeUndefined();
    const learned = (await tokenStoreOf(host).get('echo-auth', 'alice'))!;
    expect(learned).toMatchObject({ refreshToken: old.refreshToken, refreshRotates: false });
    // Time passes; the next refresh's answer is lost once.
    await tokenStoreOf(host).set('echo-auth', 'alice', { ...learned, expiresAt: Date.now() - 1000 });
    let dropped = false;
    oauth.afterRefreshing = async () => {
      if (dropped) return;
      dropped = true;
      throw new Error('connection dropped');
    };
    const { last } = await callUntilSettled(15_000);
    expect(errorOf(last)).toBeUndefined();
    expect(sent(old.refreshToken)).toBe(3);
    expect(oauth.reuses).toEqual([]);
  }, 60_000);

  it('logs a refresh the vendor refused (invalid_grant) and the token deleted, never the token', async () => {
    oauth.refuseRefresh = true;
    const old = await authorizeAlice(Date.now() - 1000);
    expect(errorOf(await getItem('x'))).toMatchObject({ code: 'authorization_required' });
    expect(log.lines()).toContain('token refresh refused by the vendor (invalid_grant)');
    expect(log.lines()).not.toContain(old.refreshToken);
    expect(await tokenStoreOf(host).get('echo-auth', 'alice')).toBeUndefined();
  });

  it('keeps the token when the token endpoint refuses the client (invalid_client), and logs it', async () => {
    oauth.beforeAnswer = async (grant) => {
      if (grant === 'refresh_token') oauth.refuseClient = true;
    };
    const old = await authorizeAlice(Date.now() - 1000);
    const r = await getItem('x');
    expect(errorOf(r)).toMatchObject({ code: 'upstream_unavailable' });
    expect(log.lines()).toContain('token refresh failed (invalid_client');
    expect(await tokenStoreOf(host).get('echo-auth', 'alice')).toEqual(old);
  });
});
