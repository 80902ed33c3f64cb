import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import {
  authorizationUrl,
  type Running,
  registerPublicClient,
  startAuthorizationServer,
  startStatic,
  TestBrowser,
  upstreamLinkOf,
} from './support.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

/** The memory store, its records' keys in view. */
class CountingStore extends MemoryStateStore {
  keys(prefix: string): string[] {
    return [...this.entries.keys()].filter((k) => k.startsWith(prefix));
  }
}

let as: Running;
let provider: Awaited<ReturnType<typeof startStatic>>;
const store = new CountingStore();
beforeAll(async () => {
  // The team's OpenID provider: its discovery document is all a sign-in's start reads.
  provider = await startStatic((_req, res, base) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        jwks_uri: `${base}/jwks`,
      }),
    );
  });
  as = await startAuthorizationServer({
    store,
    signIn: { upstream: { issuer: provider.base, clientId: 'the-host', name: 'Team' } },
  });
});
afterAll(async () => {
  await as.close();
  await provider.close();
});

describe('signing in with the provider', () => {
  it('keeps one attempt per authorization request however often its sign-in is started', async () => {
    const clientId = await registerPublicClient(as.issuer, REDIRECT);
    const browser = new TestBrowser();
    const page = await browser.open(authorizationUrl(as.issuer, clientId, REDIRECT), as.issuer);
    const start = upstreamLinkOf(page.text);
    expect(start).toBeDefined();
    // Each start sends the browser to the provider with a fresh state; none is ever finished.
    const states = new Set<string>();
    for (let i = 0; i < 30; i += 1) {
      const res = await browser.request(start!);
      expect(res.status).toBe(303);
      const to = new URL(res.headers.get('location')!);
      expect(to.origin).toBe(provider.base);
      states.add(to.searchParams.get('state')!);
    }
    expect(states.size).toBe(30);
    expect(store.keys('upstream:')).toHaveLength(1);
  });

  it('refuses a callback whose state is not the latest attempt, and a made-up one, without a server error', async () => {
    for (const state of [
      '',
      'no-request-in-it',
      `${'x'.repeat(80)}.y`,
      'e0b1c2d3-0000-4000-8000-000000000000.abc',
    ]) {
      const res = await new TestBrowser().request(
        `${as.issuer}/auth/upstream/callback?${new URLSearchParams({ state, code: 'c' })}`,
      );
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('expired or was already used');
    }
  });
});

/** A store that runs `before` once, ahead of the first take of a sign-in attempt. */
class StoreStartingFirst extends CountingStore {
  before: (() => Promise<void>) | undefined;
  override async take(key: string): Promise<string | undefined> {
    const before = key.startsWith('upstream:') ? this.before : undefined;
    this.before = undefined;
    await before?.();
    return super.take(key);
  }
}

describe('a callback for an attempt a newer start replaced as it was taken', () => {
  it('leaves the newer attempt for its own callback', async () => {
    const racing = new StoreStartingFirst();
    const server = await startAuthorizationServer({
      store: racing,
      signIn: { upstream: { issuer: provider.base, clientId: 'the-host', name: 'Team' } },
    });
    try {
      const clientId = await registerPublicClient(server.issuer, REDIRECT);
      const browser = new TestBrowser();
      const page = await browser.open(authorizationUrl(server.issuer, clientId, REDIRECT), server.issuer);
      const start = upstreamLinkOf(page.text)!;
      const stateOf = async () =>
        new URL((await browser.request(start)).headers.get('location')!).searchParams.get('state')!;
      const first = await stateOf();
      let newer = '';
      racing.before = async () => {
        newer = await stateOf();
      };
      const res = await new TestBrowser().request(
        `${server.issuer}/auth/upstream/callback?${new URLSearchParams({ state: first, code: 'c' })}`,
      );
      expect(res.status).toBe(400);
      expect(newer).not.toBe('');
      const [kept] = racing.keys('upstream:');
      expect(kept).toBeDefined();
      expect(JSON.parse((await racing.get(kept!))!).state).toBe(newer);
    } finally {
      await server.close();
    }
  });
});
