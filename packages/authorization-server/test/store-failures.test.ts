import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStateStore, MemoryStateStore } from '../src/index.js';
import {
  authorizationUrl,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  startStatic,
  TestBrowser,
  tokenRequest,
  upstreamLinkOf,
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
      const authorize = await new TestBrowser().request(authorizationUrl(as.issuer, clientId, REDIRECT));
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

describe("a file store that cannot keep a sign-in's start (its disk full)", () => {
  it('reaches the embedder as the store failing, not as the provider unreachable', async () => {
    const provider = await startStatic((_req, res, base) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: base, authorization_endpoint: `${base}/authorize` }));
    });
    const file = join(mkdtempSync(join(tmpdir(), 'as-store-failures-')), 'authorization-server.json');
    const server = await startAuthorizationServer({
      store: new FileStateStore(file, { lock: (at) => new FileLock(at) }),
      signIn: { upstream: { issuer: provider.base, clientId: 'the-host', name: 'Team' } },
    });
    try {
      const clientId = await registerPublicClient(server.issuer, REDIRECT);
      const browser = new TestBrowser();
      const page = await browser.open(authorizationUrl(server.issuer, clientId, REDIRECT), server.issuer);
      const start = upstreamLinkOf(page.text)!;
      // The next write's temporary file opens as /dev/full: writing it fails with ENOSPC.
      symlinkSync('/dev/full', `${file}.${process.pid}.tmp`);
      const failed = await browser.request(start);
      // The test server answers what the embedder was handed (the host: 503 temporarily_unavailable).
      expect(failed.status).toBe(500);
      expect(await failed.text()).toContain('cannot keep this change now');
      // The disk has room again: the same start goes to the provider.
      const started = await browser.request(start);
      expect(started.status).toBe(303);
      expect(new URL(started.headers.get('location')!).origin).toBe(provider.base);
    } finally {
      await server.close();
      await provider.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });
});
