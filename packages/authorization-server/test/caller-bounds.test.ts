import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import {
  pkce,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  startStatic,
  tokenRequest,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The memory store, with its open authorization requests in view. */
class Counted extends MemoryStateStore {
  get openRequests(): number {
    return [...this.entries.keys()].filter((k) => k.startsWith('request:')).length;
  }
}

/**
 * A server whose callers are told by a header, as a trusted proxy's would tell them: each
 * test names the addresses its requests come from.
 */
async function behindProxy(overrides = {}): Promise<Running & { store: Counted }> {
  const store = new Counted();
  const as = await startAuthorizationServer({
    store,
    callerAddress: (req) => String(req.headers['x-test-caller'] ?? req.socket.remoteAddress),
    ...overrides,
  });
  closers.push(() => as.close());
  return { ...as, store };
}

function authorize(as: Running, clientId: string, caller: string): Promise<Response> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  return fetch(`${as.issuer}/auth/authorize?${query}`, {
    headers: { 'x-test-caller': caller },
    redirect: 'manual',
  });
}

describe('bounds per caller', () => {
  it('opens at most perAddress authorization requests per address, and refuses more with 429 before opening one', async () => {
    const as = await behindProxy({ authorizationRequests: { perAddress: 3 } });
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    for (let i = 0; i < 3; i += 1) expect((await authorize(as, clientId, '203.0.113.7')).status).toBe(303);
    expect(as.store.openRequests).toBe(3);

    const refused = await authorize(as, clientId, '203.0.113.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('600');
    expect(await refused.text()).toContain('Too many sign-ins started from your network');
    expect(as.store.openRequests).toBe(3);
    // Written IPv4-mapped, the same address.
    expect((await authorize(as, clientId, '::ffff:203.0.113.7')).status).toBe(429);

    // Another caller behind the same proxy has a bound of its own.
    expect((await authorize(as, clientId, '198.51.100.2')).status).toBe(303);
    expect(as.store.openRequests).toBe(4);
  });

  it('counts an IPv6 caller by its /64', async () => {
    const as = await behindProxy({ authorizationRequests: { perAddress: 2 } });
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    expect((await authorize(as, clientId, '2001:db8:5:6::1')).status).toBe(303);
    expect((await authorize(as, clientId, '2001:db8:5:6:ffff::2')).status).toBe(303);
    expect((await authorize(as, clientId, '2001:db8:5:6::3')).status).toBe(429);
    expect((await authorize(as, clientId, '2001:db8:5:7::1')).status).toBe(303);
  });

  it('counts requests for unknown clients too, and bounds them in all', async () => {
    const as = await behindProxy({ authorizationRequests: { perAddress: 10, total: 4 } });
    for (let i = 0; i < 4; i += 1) expect((await authorize(as, 'nobody', `192.0.2.${i}`)).status).toBe(400);
    const refused = await authorize(as, 'nobody', '192.0.2.200');
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many sign-ins started;');
  });

  it("counts registrations by the caller's address, not the connection's", async () => {
    const as = await behindProxy({ registration: { perAddress: 1, total: 100, windowSeconds: 60 } });
    const register = (caller: string) =>
      fetch(`${as.issuer}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test-caller': caller },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
      });
    expect((await register('203.0.113.7')).status).toBe(201);
    expect((await register('203.0.113.7')).status).toBe(429);
    expect((await register('198.51.100.2')).status).toBe(201);
  });

  it('fetches client metadata documents named at the token and revocation endpoints within a bound per address, cached ones not counted', async () => {
    const as = await behindProxy({ metadataFetch: { perAddress: 3 } });
    const documents = await startStatic((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    closers.push(() => documents.close());
    const token = (path: string, caller: string) =>
      tokenRequest(
        as.issuer,
        { grant_type: 'refresh_token', refresh_token: 'r', client_id: `${documents.base}${path}` },
        { 'x-test-caller': caller },
      );
    for (let i = 0; i < 3; i += 1) expect((await token(`/c${i}.json`, '203.0.113.7')).status).toBe(401);
    const refused = await token('/c3.json', '203.0.113.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('600');
    const revoked = await fetch(`${as.issuer}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-test-caller': '203.0.113.7' },
      body: new URLSearchParams({ token: 't', client_id: `${documents.base}/c4.json` }).toString(),
    });
    expect(revoked.status).toBe(429);
    expect(documents.hits).toHaveLength(3);
    // A document already fetched (here its failure, cached) costs no fetch, and is not counted.
    expect((await token('/c0.json', '203.0.113.7')).status).toBe(401);
    // Another caller has a bound of its own.
    expect((await token('/c5.json', '198.51.100.2')).status).toBe(401);
    expect(documents.hits).toHaveLength(4);
  });
});
