import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import {
  pkce,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  TestBrowser,
  tokenRequest,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

/** A store whose reads of clients fail while `away`, as a Redis that does not answer. */
class ClientsAway extends MemoryStateStore {
  away = false;
  override async get(key: string) {
    if (this.away && key.startsWith('client:')) throw new Error('store away: no answer in 500 ms');
    return super.get(key);
  }
}

let as: Running;
const store = new ClientsAway();
beforeAll(async () => {
  as = await startAuthorizationServer({ store });
});
afterAll(() => as.close());

// A store that does not answer says nothing of the client: the embedder is handed the failure
// (the host answers it 503 temporarily_unavailable). Told invalid_client, an MCP client drops
// its registration and tokens; told "this client cannot be used", a person gives up on it.
describe('a store that does not answer while a client is looked up', () => {
  it('reaches the embedder from the authorization and token endpoints, not as a verdict on the client', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    store.away = true;
    try {
      const authorize = await new TestBrowser().request(
        `${as.issuer}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`,
      );
      // The test server answers what the embedder was handed: 500 and the error.
      expect(authorize.status).toBe(500);
      expect(await authorize.text()).toContain('store away');
      const token = await tokenRequest(as.issuer, {
        grant_type: 'refresh_token',
        refresh_token: 'some-refresh-token',
        client_id: clientId,
      });
      expect(token.status).toBe(500);
      expect(await token.text()).toContain('store away');
    } finally {
      store.away = false;
    }
    expect(as.events.filter((e) => e.error === 'invalid_client')).toEqual([]);
  });
});
