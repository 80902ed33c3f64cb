import { afterAll, describe, expect, it } from 'vitest';
import {
  authorizationUrl,
  authorizeInBrowser,
  pkce,
  type Running,
  startAuthorizationServer,
  startStatic,
  TestBrowser,
  tokenRequest,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function running(overrides = {}): Promise<Running> {
  const as = await startAuthorizationServer(overrides);
  closers.push(() => as.close());
  return as;
}

/** A client id metadata document served on loopback, `document` given the URL it is served at. */
async function documentServer(document: (clientId: string) => unknown, headers: Record<string, string> = {}) {
  const served = await startStatic((_req, res, base) => {
    const body = JSON.stringify(document(`${base}/client.json`));
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  closers.push(() => served.close());
  return { ...served, clientId: `${served.base}/client.json` };
}

function authorizeUrl(as: Running, clientId: string): string {
  return authorizationUrl(as.issuer, clientId, REDIRECT);
}

describe('client id metadata documents', () => {
  it('fetches the document at the client id, shows its name, and issues tokens to it as a public client', async () => {
    const as = await running();
    const doc = await documentServer(
      (clientId) => ({
        client_id: clientId,
        client_name: 'Doc Client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
      { 'cache-control': 'max-age=600' },
    );
    const { verifier, challenge } = pkce();
    const landed = await authorizeInBrowser(new TestBrowser(), as.issuer, {
      response_type: 'code',
      client_id: doc.clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const res = await tokenRequest(as.issuer, {
      grant_type: 'authorization_code',
      code: landed.searchParams.get('code')!,
      code_verifier: verifier,
      client_id: doc.clientId,
      redirect_uri: REDIRECT,
    });
    expect(res.status).toBe(200);
    // Cached: the authorization, consent page and token request fetched it once.
    expect(doc.hits).toEqual(['GET /client.json']);
  });

  it('refuses a document naming another client id, or asking for a client secret method', async () => {
    const as = await running();
    for (const document of [
      () => ({ client_id: 'https://someone.else/client.json', redirect_uris: [REDIRECT] }),
      (clientId: string) => ({
        client_id: clientId,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
      (clientId: string) => ({ client_id: clientId, redirect_uris: ['javascript:alert(1)'] }),
    ]) {
      const doc = await documentServer(document);
      const res = await new TestBrowser().request(authorizeUrl(as, doc.clientId));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('never fetches a private, link-local or loopback address for a server reached from elsewhere, nor http', async () => {
    const doc = await documentServer((clientId) => ({ client_id: clientId, redirect_uris: [REDIRECT] }));
    // An issuer that is not loopback: a server on the internet must not fetch this machine's ports.
    const as = await running({ issuer: 'https://as.example.com' });
    for (const clientId of [
      doc.clientId,
      doc.clientId.replace('http:', 'https:'),
      'https://10.1.2.3/client.json',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/client.json',
      'https://[fd00::1]/client.json',
      'https://[::ffff:192.168.1.1]/client.json',
      'https://localhost/client.json',
    ]) {
      const res = await new TestBrowser().request(authorizeUrl(as, clientId));
      expect(res.status, clientId).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      // Refused by the guard, not merely unreachable from here (which would also be a 400).
      expect(await res.text(), clientId).toMatch(/is not a public address|not public|is not an https URL/);
    }
    expect(doc.hits).toEqual([]);
  });

  it('gives up on a document that answers slowly or hugely', async () => {
    const as = await running({ metadataFetch: { timeoutMs: 500, maxBytes: 4096 } });
    const slow = await startStatic((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }, 3000);
    });
    closers.push(() => slow.close());
    const huge = await startStatic((_req, res, base) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: `${base}/client.json`,
          redirect_uris: [REDIRECT],
          client_name: 'x'.repeat(1_000_000),
        }),
      );
    });
    closers.push(() => huge.close());
    const started = Date.now();
    const slowRes = await new TestBrowser().request(authorizeUrl(as, `${slow.base}/client.json`));
    expect(slowRes.status).toBe(400);
    // The promise: the fetch is given up after its 500 ms deadline; the document would take 3 s.
    // 2.5 s leaves 2 s for a loaded machine to run the request around that deadline and still
    // tells a fetch cut at 500 ms from one that waited the 3 s out.
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await slowRes.text()).toMatch(/within 500 ms/);
    const hugeRes = await new TestBrowser().request(authorizeUrl(as, `${huge.base}/client.json`));
    expect(hugeRes.status).toBe(400);
    expect(await hugeRes.text()).toMatch(/larger than 4096 bytes/);
  });

  it('can be turned off, and then is not advertised', async () => {
    const as = await running({ clientIdMetadataDocuments: false, dynamicRegistration: false });
    const metadata = (await (
      await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(false);
    expect(metadata).not.toHaveProperty('registration_endpoint');
    const register = await fetch(`${as.issuer}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(register.status).toBe(404);
  });
});

describe('dynamic client registration', () => {
  it('refuses bad redirect URIs and bounds a flood per address', async () => {
    const as = await running({ registration: { perAddress: 3, total: 100, windowSeconds: 60 } });
    const register = (body: unknown) =>
      fetch(`${as.issuer}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const uri of ['http://evil.example/cb', 'javascript:alert(1)', 'https://x.example/cb#frag']) {
      const res = await register({ redirect_uris: [uri] });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    }
    const flood = await register({ redirect_uris: [REDIRECT] });
    expect(flood.status).toBe(429);
    expect(flood.headers.get('retry-after')).toBe('60');
    // As long as Retry-After says at most, not "a few minutes" for an hour's window.
    expect(await flood.json()).toMatchObject({
      error: 'too_many_requests',
      error_description: expect.stringMatching(/; try again within 60 seconds\.$/),
    });
  });
  it('refuses a registration over 16 KiB (413), one that is not JSON, and one that is not a JSON object', async () => {
    const as = await running();
    const post = (body: string) =>
      fetch(`${as.issuer}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const huge = await post(
      JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(16 * 1024) }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({
      error: 'invalid_request',
      error_description: 'The body is larger than 16384 bytes',
    });
    const broken = await post('{"redirect_uris": [');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const list = await post('[]');
    expect(list.status).toBe(400);
    expect(await list.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'The registration must be a JSON object',
    });
  });
});
