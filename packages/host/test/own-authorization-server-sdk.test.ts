import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseOf } from '../../testing/src/catalog-suite.js';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { launchChromium } from './chromium.js';
import { loopbackCertificate } from './loopback-certificate.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.js';
import { ALICE_ACCESS_TOKEN as ALICE, type HttpHostProcess, spawnHttpHost } from './support.js';

// A client that speaks only the MCP authorization spec (the SDK v2 client's OAuth provider, no
// header configured) against the host with its own authorization server: resource metadata,
// authorization server metadata, a client id metadata document (served here over https on
// loopback) or, separately, dynamic registration, PKCE, token, refresh, and tools/call on both
// protocol eras, as alice; and the same client refused cleanly when it asks for a token for
// another resource. The person's steps are played by headless Chromium on the sign-in
// and consent pages.

let upstream: RecordingUpstream;
let host: HttpHostProcess;
let browser: Browser;
let documentServer: Server;
let documentUrl: string;
let callbackServer: Server;
let redirectUrl: string;
let nextCallback: (params: URLSearchParams) => void = () => {};

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  callbackServer = createHttpServer((req, res) => {
    res.end('You can close this page.');
    nextCallback(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
  });
  redirectUrl = `http://127.0.0.1:${await listen(callbackServer)}/callback`;
  const { cert, key } = loopbackCertificate();
  documentServer = createHttpsServer({ cert, key }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        client_id: documentUrl,
        client_name: 'SDK document client',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  documentUrl = `https://127.0.0.1:${await listen(documentServer)}/client.json`;
  // The host trusts the document server's certificate as a deployment trusts its own CA.
  const caFile = join(mkdtempSync(join(tmpdir(), 'toolhost-ca-')), 'ca.pem');
  writeFileSync(caFile, cert);
  host = await spawnHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      http: { authorization: { mode: 'host' } },
    },
    {
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
      ECHO_AUTH_TOKEN: 'static-token-x',
      NODE_EXTRA_CA_CERTS: caFile,
    },
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  host?.child.kill('SIGTERM');
  await host?.exited;
  documentServer?.close();
  callbackServer?.close();
  await upstream?.close();
});

/** Alice in Chromium: signs in with her access token, reads the consent page, allows. */
async function consentInChromium(authorizationUrl: URL, expectName: string): Promise<URLSearchParams> {
  const callback = new Promise<URLSearchParams>((resolve) => {
    nextCallback = resolve;
  });
  const page = await browser.newPage();
  try {
    await page.goto(authorizationUrl.href);
    await page.fill('input[name=access_token]', ALICE);
    await Promise.all([page.waitForURL(/\/auth\/consent/), page.click('button[type=submit]')]);
    const text = await page.textContent('body');
    expect(text).toContain(expectName);
    expect(text).toContain('unverified');
    expect(text).toContain('alice');
    await Promise.all([page.waitForURL(/\/callback/), page.click('button[value=allow]')]);
  } finally {
    await page.close();
  }
  return callback;
}

/** The client as it registers itself (the document names itself). */
const CLIENT = { redirectUrl: () => redirectUrl, clientName: 'SDK registered client' };

const modern = { versionNegotiation: { mode: 'auto' as const } };

/** Connects as the provider's user: the first attempt sends the person to authorize, then again. */
async function connectWithOAuth(
  provider: MemoryOAuthProvider,
  expectName: string,
  options = {},
): Promise<Client> {
  const first = new Client({ name: 'oauth-test', version: '0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(host.url), { authProvider: provider });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const params = await consentInChromium(provider.authorizationUrl!, expectName);
  await transport.finishAuth(params);
  await first.close().catch(() => {});
  return connected(provider, options);
}

async function connected(provider: MemoryOAuthProvider, options = {}): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url), { authProvider: provider }));
  return client;
}

async function getItem(client: Client, id: string): Promise<void> {
  upstream.reset();
  const result = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } });
  expect(await responseOf(client, result)).toEqual({ status: 200, body: { ok: true } });
  expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /items/${id}`]);
}

describe("the SDK v2 client through the host's own authorization server", () => {
  it('with a client id metadata document: consent in Chromium, tools on both eras, refresh', async () => {
    const provider = new MemoryOAuthProvider({
      ...CLIENT,
      clientName: 'SDK document client',
      clientMetadataUrl: documentUrl,
    });
    const client = await connectWithOAuth(provider, 'SDK document client', modern);
    expect(client.getProtocolEra()).toBe('modern');
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(documentUrl);
    await getItem(client, 'doc-modern');
    await client.close();
    // The same grant on the session era.
    const legacy = await connected(provider);
    expect(legacy.getProtocolEra()).toBe('legacy');
    await getItem(legacy, 'doc-legacy');
    await legacy.close();
    // An access token the host no longer takes: the client refreshes (rotating) and goes on.
    const before = provider.saved!.refresh_token;
    provider.saved = { ...provider.saved!, access_token: 'no-longer-valid' };
    const again = await connected(provider, modern);
    await getItem(again, 'doc-refreshed');
    expect(provider.saved!.refresh_token).toBeDefined();
    expect(provider.saved!.refresh_token).not.toBe(before);
    await again.close();
  });

  it('with dynamic registration: consent in Chromium, tools on both eras, refresh', async () => {
    const provider = new MemoryOAuthProvider(CLIENT);
    const client = await connectWithOAuth(provider, 'SDK registered client');
    // What the SDK registered by itself: both grants, so the server gives it a refresh token.
    expect(provider.clientInformation()).toMatchObject({
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(client.getProtocolEra()).toBe('legacy');
    await getItem(client, 'dcr-legacy');
    await client.close();
    const modernClient = await connected(provider, modern);
    expect(modernClient.getProtocolEra()).toBe('modern');
    await getItem(modernClient, 'dcr-modern');
    await modernClient.close();
    const before = provider.saved!.refresh_token;
    expect(before).toBeDefined();
    provider.saved = { ...provider.saved!, access_token: 'no-longer-valid' };
    const again = await connected(provider, modern);
    await getItem(again, 'dcr-refreshed');
    expect(provider.saved!.refresh_token).not.toBe(before);
    await again.close();
  });

  it('is refused cleanly when it asks for a token for another resource: an error at its redirect URI, no token, nothing sent', async () => {
    const other = 'https://other.example.test/mcp';
    const provider = new MemoryOAuthProvider({ ...CLIENT, resourceOverride: other });
    const transport = new StreamableHTTPClientTransport(new URL(host.url), { authProvider: provider });
    await expect(
      new Client({ name: 'wrong-resource', version: '0' }).connect(transport),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('resource')).toBe(other);
    upstream.reset();
    // The server answers at once, before any sign-in: the browser lands on the client's redirect URI.
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    const landed = new URL(answer.headers.get('location')!);
    expect(landed.origin + landed.pathname).toBe(redirectUrl);
    expect(landed.searchParams.get('error')).toBe('invalid_target');
    expect(landed.searchParams.get('code')).toBeNull();
    await expect(transport.finishAuth(landed.searchParams)).rejects.toThrow(/invalid_target|resource/);
    expect(provider.saved).toBeUndefined();
    expect(upstream.requests).toEqual([]);
  });
});
