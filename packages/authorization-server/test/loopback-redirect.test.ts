import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pkce,
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

// RFC 8252 §7.3 lets a loopback redirect URI name any port; nothing else may differ from the
// registered one (RFC 9700 §4.1.3), and a redirect URI never has a fragment (RFC 6749 §3.1.2).
describe('a loopback redirect URI on another port', () => {
  it('is refused, with no redirect, where it adds a fragment or credentials to the registered one', async () => {
    const clientId = await registerPublicClient(as.issuer, 'http://127.0.0.1/callback');
    const ask = (redirectUri: string) =>
      new TestBrowser().request(
        `${as.issuer}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's' })}`,
      );
    for (const [other, why] of [
      // Registration refuses a fragment: so does the authorization endpoint, saying so.
      ['http://127.0.0.1:45678/callback#fragment', 'has a fragment'],
      ['http://127.0.0.1:45678/callback#', 'has a fragment'],
      ['http://someone@127.0.0.1:45678/callback', 'not one this client registered'],
      ['http://someone:secret@127.0.0.1:45678/callback', 'not one this client registered'],
      // The path as registered, character for character: no dot segments or case a parser resolves.
      ['http://127.0.0.1:45678/callback/../callback', 'not one this client registered'],
      ['http://127.0.0.1:45678/x/../callback', 'not one this client registered'],
      ['http://127.0.0.1:45678/x/%2e%2e/callback', 'not one this client registered'],
      ['http://127.0.0.1:45678/./callback', 'not one this client registered'],
      ['http://127.0.0.1:45678/Callback', 'not one this client registered'],
      ['http://127.0.0.1:045678/callback', 'not one this client registered'],
    ]) {
      const res = await ask(other!);
      expect({ other, status: res.status, location: res.headers.get('location') }).toEqual({
        other,
        status: 400,
        location: null,
      });
      expect(await res.text()).toContain(why);
    }
    // The port alone may differ.
    const res = await ask('http://127.0.0.1:45678/callback');
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!, as.issuer).pathname).toBe('/auth/sign-in');
  });

  it('is taken with its query, on [::1] and localhost, from a registered one with a port, and with the scheme and host in any case or an empty path as /', async () => {
    const registered = ['http://localhost', 'http://[::1]/cb?x=1', 'http://127.0.0.1:5555/cb'];
    const clientId = await registerPublicClient(as.issuer, registered[0]!, 'Test client', {
      redirect_uris: registered,
    });
    const ask = (redirectUri: string) =>
      new TestBrowser().request(
        `${as.issuer}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's' })}`,
      );
    for (const other of [
      'http://localhost:9999/',
      'http://localhost:9999',
      'http://LOCALHOST:9999/',
      'HTTP://localhost:9999/',
      'http://[::1]:4444/cb?x=1',
      'http://127.0.0.1:6666/cb',
      'http://127.0.0.1/cb',
    ]) {
      const res = await ask(other);
      expect({ other, status: res.status }).toEqual({ other, status: 303 });
    }
    for (const other of [
      'http://localhost:9999/x',
      'http://[::1]:4444/cb?x=2',
      'http://127.0.0.1:6666/cb/',
    ]) {
      const res = await ask(other);
      expect({ other, status: res.status }).toEqual({ other, status: 400 });
    }
  });
});
