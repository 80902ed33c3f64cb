import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationUrl,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  TestBrowser,
} from './support.js';

let as: Running;
beforeAll(async () => {
  as = await startAuthorizationServer();
});
afterAll(() => as.close());

const register = (redirectUri: string) =>
  fetch(`${as.issuer}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  });

// A redirect URI is compared as the client wrote it, but the code goes where the URL parser
// reads it (as a browser's does): for each of these the two differed, the code going to the
// host `callback`, or to a path the client never registered.
describe('a redirect URI that is not one as RFC 3986 writes it', () => {
  it('is refused at registration, naming why', async () => {
    for (const [uri, why] of [
      ['https:///callback', 'names no host'],
      ['https:callback', 'names no host'],
      ['http:\\\\127.0.0.1/callback', 'characters'],
      ['https://app.example.com/cb\r\nSet-Cookie: x=1', 'characters'],
      ['https://app.example.com/cb\tx', 'characters'],
      ['https://app.example.com/c b', 'characters'],
      ['https://app.example.com/cb"><script>', 'characters'],
      ['https://ex\u0430mple.com/cb', 'characters'],
    ]) {
      const res = await register(uri!);
      expect({ uri, status: res.status }).toEqual({ uri, status: 400 });
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, uri).toBe('invalid_redirect_uri');
      expect(body.error_description, uri).toContain(why);
    }
  });

  it('leaves the redirect URIs clients register as they are', async () => {
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/',
      'cursor://anysphere.cursor-retrieval/oauth/user-toolhost/callback',
      'https://app.example.com/cb?from=%C3%A9&x=[1]',
    ])
      await expect(registerPublicClient(as.issuer, uri)).resolves.toMatch(/./);
  });
});

// A loopback redirect URI may name any port, so it is compared as parsed, and the parser drops
// a tab or line break: the code went to the registered URI, read as the URI asked for. What
// registration refuses, the authorization endpoint refuses too, sending nothing anywhere.
describe('a redirect URI asked at the authorization endpoint', () => {
  it('is refused, with nothing sent to it, where registration would refuse it', async () => {
    const registered = 'http://127.0.0.1:7777/callback';
    const clientId = await registerPublicClient(as.issuer, registered);
    for (const [uri, why] of [
      ['http://127.0.0.1:8888/call\tback', 'has characters a URI does not'],
      ['http://127.0.0.1:8888/call\nback', 'has characters a URI does not'],
      ['http://127.0.0.1:7777/callback\r', 'has characters a URI does not'],
      ['http://127.0.0.1:8888/callback#x', 'has a fragment'],
    ]) {
      const res = await new TestBrowser().request(authorizationUrl(as.issuer, clientId, uri!));
      expect({ uri, status: res.status, location: res.headers.get('location') }).toEqual({
        uri,
        status: 400,
        location: null,
      });
      expect(await res.text(), uri).toContain(`The redirect URI ${why}`);
    }
    // The registered one, on any port, goes on to sign-in.
    const res = await new TestBrowser().request(
      authorizationUrl(as.issuer, clientId, 'http://127.0.0.1:8888/callback'),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/auth/sign-in');
  });
});
