import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { Browser, formOf, startFlow } from './browser.js';
import { echoAuthProviders, type FakeOAuthServer, fakeClient } from './fake-oauth-server.js';
import {
  ALICE_ACCESS_TOKEN as ALICE,
  BOB_ACCESS_TOKEN as BOB,
  capturedLogger,
  fixtureApp,
} from './support.js';
import { startVendorFakes, type VendorFakes } from './vendor-fakes.js';

const TOKEN_KEY = 'token-encryption-key-for-tests';

let vendor: VendorFakes;
let oauth: FakeOAuthServer;
let upstream: RecordingUpstream;
let dataDir: string;
const log = capturedLogger('debug');
let host: Host;
let server: HttpServerHandle;
const clients: Client[] = [];

function config(): HostConfig {
  return {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    auth: {
      dataDir,
      providers: echoAuthProviders(oauth),
    },
  };
}

async function start(): Promise<void> {
  const logger = log.logger;
  host = await createHost(config(), {
    configDir: fixtureApp,
    env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret, TOOLHOST_TOKEN_KEY: TOKEN_KEY },
    logger,
  });
  server = await serveHttp(host, { accessTokens: new AccessTokens({ alice: ALICE, bob: BOB }), logger });
}

async function stop(): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await server.close();
  await host.close();
}

async function connect(token: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '0.0.0' }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

type ErrorInfo = {
  code: string;
  message: string;
  authorization?: { url: string; scopes: string[]; provider: string };
};
const errorOf = (r: unknown) =>
  ((r as { structuredContent: unknown }).structuredContent as { error: ErrorInfo }).error;
const getItem = (c: Client, id = 'i1') => c.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } });

async function authorize(client: Client, token = ALICE): Promise<void> {
  const first = await getItem(client);
  expect(first.isError).toBe(true);
  const browser = new Browser();
  const callback = await startFlow(browser, errorOf(first).authorization!.url, token);
  const page = await browser.open(callback);
  expect(page.status).toBe(200);
}

beforeAll(async () => {
  vendor = await startVendorFakes();
  ({ oauth, upstream } = vendor);
});
afterAll(() => vendor.close());
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'toolhost-oauth-'));
  log.clear();
  vendor.reset();
  await start();
});
afterEach(stop);

describe('OAuth user authorization', () => {
  it('goes from authorization_required through the callback to a successful call', async () => {
    const alice = await connect(ALICE);
    const first = await getItem(alice);
    expect(first.isError).toBe(true);
    const error = errorOf(first);
    expect(error.code).toBe('authorization_required');
    expect(error.authorization).toMatchObject({
      provider: 'echo-auth',
      scopes: ['items.read'],
      id: expect.any(String),
    });
    // The flow's id travels in the error itself; the link names the same flow.
    const { id } = error.authorization as { id?: string };
    expect(new URL(error.authorization!.url).searchParams.get('flow')).toBe(id);
    // The link points at the host, which binds the browser before sending it on.
    const link = new URL(error.authorization!.url);
    expect(link.origin + link.pathname).toBe(`${new URL(server.url).origin}/oauth/start/echo-auth`);
    expect(upstream.requests).toHaveLength(0);

    const browser = new Browser();
    const confirmation = await browser.open(link);
    const form = formOf(confirmation);
    const atVendor = await browser.submit(
      form.action,
      { ...form.fields, access_token: ALICE },
      (next) => next.origin === oauth.url,
    );
    const url = atVendor.url;
    expect(url.origin + url.pathname).toBe(oauth.authorizeUrl);
    expect(url.searchParams.get('redirect_uri')).toBe(
      `${new URL(server.url).origin}/oauth/callback/echo-auth`,
    );
    expect(url.searchParams.get('scope')).toBe('items.read');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const page = await browser.open(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Authorization complete');

    const second = await getItem(alice);
    expect(second.isError).toBeFalsy();
    expect(upstream.requests[0]!.headers.authorization).toBe('Bearer access-1');
    expect(oauth.grants.map((g) => g.grant_type)).toEqual(['authorization_code']);
  });

  it('does not let another browser complete a user\u2019s authorization', async () => {
    const bob = await connect(BOB);
    const url = errorOf(await getItem(bob)).authorization!.url;
    // Someone else's browser (no cookie, no MCP identity) follows Bob's link to its end.
    const page = await new Browser().open(url);
    expect(page.text).not.toContain('Authorization complete');
    expect(errorOf(await getItem(bob)).code).toBe('authorization_required');
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a callback without the cookie of the browser that started the flow', async () => {
    const bob = await connect(BOB);
    const url = errorOf(await getItem(bob)).authorization!.url;
    const browser = new Browser();
    const callback = await startFlow(browser, url, BOB);
    const elsewhere = await new Browser().open(callback);
    expect(elsewhere.status).toBe(403);
    expect(errorOf(await getItem(bob)).code).toBe('authorization_required');
    // The refused attempt did not use up the flow: Bob's own browser completes it.
    expect((await browser.open(callback)).status).toBe(200);
    expect((await getItem(bob)).isError).toBeFalsy();
  });

  it('confirms a flow only with the access token of the user who started it', async () => {
    const bob = await connect(BOB);
    const url = errorOf(await getItem(bob)).authorization!.url;
    const page = await new Browser().open(url);
    expect(page.status).toBe(200);
    const form = formOf(page);
    const withAlices = await new Browser().submit(form.action, { ...form.fields, access_token: ALICE });
    expect(withAlices.status).toBe(403);
    expect(withAlices.text).not.toContain(ALICE);
    const forged = await new Browser().open(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ ...form.fields, access_token: BOB }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(oauth.grants).toHaveLength(0);
    expect(errorOf(await getItem(bob)).code).toBe('authorization_required');
  });

  it('refreshes before expiry', async () => {
    oauth.expiresIn = 30; // inside the 60 s refresh margin: due at once
    const alice = await connect(ALICE);
    await authorize(alice);
    await getItem(alice);
    expect(oauth.grants.map((g) => g.grant_type)).toEqual(['authorization_code', 'refresh_token']);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer access-2');
  });

  it('refreshes once on a 401 and retries with the new token', async () => {
    const alice = await connect(ALICE);
    await authorize(alice);
    upstream.respond((req) =>
      req.headers.authorization === 'Bearer access-1'
        ? { status: 401, body: { message: 'expired' } }
        : { status: 200, body: { ok: true } },
    );
    const result = await getItem(alice);
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer access-1',
      'Bearer access-2',
    ]);
    expect(oauth.grants.filter((g) => g.grant_type === 'refresh_token')).toHaveLength(1);
  });

  it('shares one refresh among many concurrent calls on a 401', async () => {
    const alice = await connect(ALICE);
    await authorize(alice);
    upstream.respond((req) =>
      req.headers.authorization === 'Bearer access-1' ? { status: 401 } : { status: 200, body: { ok: true } },
    );
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => getItem(alice, `i${i}`)));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(oauth.grants.filter((g) => g.grant_type === 'refresh_token')).toHaveLength(1);
  });

  it('shares one refresh among many concurrent calls before expiry', async () => {
    oauth.expiresIn = 30;
    const alice = await connect(ALICE);
    await authorize(alice);
    oauth.expiresIn = 3600;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => getItem(alice, `i${i}`)));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(oauth.grants.filter((g) => g.grant_type === 'refresh_token')).toHaveLength(1);
    expect(new Set(upstream.requests.map((r) => r.headers.authorization))).toEqual(
      new Set(['Bearer access-2']),
    );
  });

  it('leads a revoked refresh token back to authorization_required', async () => {
    oauth.expiresIn = 30;
    const alice = await connect(ALICE);
    await authorize(alice);
    oauth.refuseRefresh = true;
    const result = await getItem(alice);
    expect(errorOf(result).code).toBe('authorization_required');
    expect(upstream.requests).toHaveLength(0);
    // The dead token is forgotten: the next call asks for authorization without trying again.
    const refreshes = oauth.grants.filter((g) => g.grant_type === 'refresh_token').length;
    expect(errorOf(await getItem(alice)).code).toBe('authorization_required');
    expect(oauth.grants.filter((g) => g.grant_type === 'refresh_token')).toHaveLength(refreshes);
  });

  it('keeps two users\u2019 tokens apart', async () => {
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    await authorize(alice);
    expect((await getItem(alice)).isError).toBeFalsy();
    const bobResult = await getItem(bob);
    expect(errorOf(bobResult).code).toBe('authorization_required');
    await authorize(bob, BOB);
    await getItem(bob);
    const auths = upstream.requests.map((r) => r.headers.authorization);
    expect(auths).toEqual(['Bearer access-1', 'Bearer access-2']);
  });

  it('keeps tokens across a restart, encrypted and owner-only on disk', async () => {
    const alice = await connect(ALICE);
    await authorize(alice);
    await stop();
    await start();
    const again = await connect(ALICE);
    expect((await getItem(again)).isError).toBeFalsy();
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer access-1');
    const file = join(dataDir, 'tokens.enc.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toContain('access-1');
    expect(raw).not.toContain('refresh-1-');
  });

  it('rejects an unknown state and a PKCE mismatch', async () => {
    const alice = await connect(ALICE);
    const r1 = errorOf(await getItem(alice)).authorization!.url;
    const r2 = errorOf(await getItem(alice)).authorization!.url;
    const browser = new Browser();
    const cb1 = await startFlow(browser, r1, ALICE);
    const cb2 = await startFlow(browser, r2, ALICE);
    const forged = new URL(cb1);
    forged.searchParams.set('state', 'not-a-state-we-issued');
    expect((await browser.open(forged)).status).toBe(400);
    // Code of flow 1 delivered with the state of flow 2: the verifier does not match its challenge.
    const swapped = new URL(cb1);
    swapped.searchParams.set('state', cb2.searchParams.get('state')!);
    const res = await browser.open(swapped);
    expect(res.status).toBe(400);
    expect(res.text).toContain('invalid_grant');
    expect(errorOf(await getItem(alice)).code).toBe('authorization_required');
  });

  it('rejects MCP requests without a valid access token', async () => {
    await expect(connect('wrong-token-0000000000000')).rejects.toThrow();
  });

  it('uses URL elicitation when the client supports it, and says when authorization completed', async () => {
    const alice = await connect(ALICE, { elicitation: { url: {} } });
    const completed = new Promise<string>((resolve) =>
      alice.setNotificationHandler('notifications/elicitation/complete', (n) =>
        resolve(n.params.elicitationId),
      ),
    );
    let error: unknown;
    try {
      await getItem(alice);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32042);
    const elicitation = (
      (error as ProtocolError).data as { elicitations: { url: string; elicitationId: string }[] }
    ).elicitations[0]!;
    const browser = new Browser();
    await browser.open(await startFlow(browser, elicitation.url, ALICE));
    expect(await completed).toBe(elicitation.elicitationId);
    expect((await getItem(alice)).isError).toBeFalsy();
  });

  it('tells a client whose event stream was down as the sign-in completed, once it opens one', async () => {
    // A session opened by hand, so that no event stream is open when the sign-in completes.
    let session = '';
    const headers = () => ({
      authorization: `Bearer ${ALICE}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(session ? { 'mcp-session-id': session } : {}),
    });
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(server.url, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
      session ||= res.headers.get('mcp-session-id') ?? '';
      return (await res.text()) || '{}';
    };
    const clientInfo = { name: 'stream-down', version: '0' };
    const capabilities = { elicitation: { url: {} } };
    await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities, clientInfo },
    });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const call = { name: 'EchoApi_GetItem', arguments: { item_id: 'i1' } };
    const asked = JSON.parse(await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call }));
    const { url, elicitationId } = asked.error.data.elicitations[0];
    const browser = new Browser();
    expect((await browser.open(await startFlow(browser, url, ALICE))).status).toBe(200);
    const stream = new AbortController();
    const res = await fetch(server.url, {
      headers: { ...headers(), accept: 'text/event-stream' },
      signal: stream.signal,
    });
    const reader = res.body!.getReader();
    const first = await Promise.race([reader.read(), new Promise((r) => setTimeout(r, 3000, 'nothing'))]);
    stream.abort();
    expect(first).not.toBe('nothing');
    expect(new TextDecoder().decode((first as { value: Uint8Array }).value)).toContain(
      `"method":"notifications/elicitation/complete","params":{"elicitationId":"${elicitationId}"}`,
    );
  });

  it('asks for sign-in with input_required on 2026-07-28, and the retry after it succeeds', async () => {
    const client = new Client(
      { name: 'modern', version: '0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { url: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const { mode, url } = request.params as { mode: string; url: string };
      asked.push(mode);
      const browser = new Browser();
      expect((await browser.open(await startFlow(browser, url, ALICE))).status).toBe(200);
      return { action: 'accept' };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    const result = await getItem(client);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(asked).toEqual(['url']);
    expect(upstream.requests).toHaveLength(1);
    // A client that cannot open a URL gets the structured error with the link, as before.
    const plain = new Client({ name: 'plain', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    await plain.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${BOB}` } },
      }),
    );
    clients.push(plain);
    const refused = await getItem(plain);
    expect(errorOf(refused).code).toBe('authorization_required');
  });

  it('asks again and again without piling up listeners (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const alice = await connect(ALICE, { elicitation: { url: {} } });
      for (let i = 0; i < 20; i += 1) await expect(getItem(alice)).rejects.toMatchObject({ code: -32042 });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('keeps secrets and tokens out of logs and tool output', async () => {
    const alice = await connect(ALICE);
    await authorize(alice);
    const out = JSON.stringify(await getItem(alice));
    for (const secret of [fakeClient.clientSecret, TOKEN_KEY, ALICE, 'access-1', 'refresh-1-']) {
      expect(log.lines()).not.toContain(secret);
      expect(out).not.toContain(secret);
    }
    expect(log.lines()).toMatch(/"provider":"echo-auth","user":"alice","msg":"authorization completed"/);
  });
});

describe('OAuth without access tokens (loopback, one trusted user)', () => {
  it('binds the first browser to open a link and refuses the link in any other', async () => {
    const local = await serveHttp(host, { port: 0 });
    try {
      const client = new Client({ name: 'oauth-local', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(local.url)));
      clients.push(client);
      const url = errorOf(await getItem(client)).authorization!.url;
      const first = new Browser();
      const callback = await startFlow(first, url, '');
      const second = await new Browser().open(url);
      expect(second.status).toBe(403);
      expect(second.text).toContain('opened in another browser');
      expect((await new Browser().open(callback)).status).toBe(403);
      expect((await first.open(callback)).status).toBe(200);
      expect((await getItem(client)).isError).toBeFalsy();
    } finally {
      await local.close();
    }
  });
});
