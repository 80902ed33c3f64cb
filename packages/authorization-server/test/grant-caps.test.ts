import { afterEach, describe, expect, it, vi } from 'vitest';
import { grantNamedBy } from '../src/refresh-tokens.js';
import { hashOf } from '../src/secrets.js';
import type { HookedStore } from './hooked-store.js';
import { STORES } from './hooked-store.js';
import {
  authorizeInBrowser,
  authorizeParams,
  type Running,
  redeemCode,
  refreshRequest,
  registerPublicClient,
  startAuthorizationServer,
  TestBrowser,
} from './support.js';

// Each authorization makes a grant that lives a month: one person (a script, or a site
// driving their signed-in browser) could make as many as they like. They keep their newest
// 16 per client; the oldest end once a newer one has really been made, and never twice.
const REDIRECT = 'http://127.0.0.1:7777/callback';

interface Setup {
  server: Running;
  store: HookedStore;
  clientId: string;
  browser: TestBrowser;
}

const ends: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const end of ends.splice(0)) await end();
});

async function setUp(kind: keyof typeof STORES): Promise<Setup> {
  const { store, close } = STORES[kind]();
  const server = await startAuthorizationServer({ store });
  ends.push(close, () => server.close());
  const clientId = await registerPublicClient(server.issuer, REDIRECT);
  return { server, store, clientId, browser: new TestBrowser() };
}

/** A code the signed-in person's browser was given for the client, and its verifier. */
async function codeFor({ server, clientId, browser }: Setup) {
  const { verifier, params } = authorizeParams(clientId, REDIRECT);
  const landed = await authorizeInBrowser(browser, server.issuer, params);
  return { code: landed.searchParams.get('code')!, verifier };
}

const exchange = ({ server, clientId }: Setup, { code, verifier }: { code: string; verifier: string }) =>
  redeemCode(server.issuer, { clientId, redirectUri: REDIRECT }, code, verifier);

/** A grant made through the browser and the token endpoint: its id and refresh token. */
async function granted(setup: Setup) {
  const res = await exchange(setup, await codeFor(setup));
  expect(res.status).toBe(200);
  const { refresh_token } = (await res.json()) as { refresh_token: string };
  return { id: grantNamedBy(refresh_token)!, refreshToken: refresh_token };
}

const refresh = ({ server, clientId }: Setup, refreshToken: string) =>
  refreshRequest(server.issuer, clientId, refreshToken);

/** What the store holds of a grant: live, revoked, or gone. */
async function stateOf({ store }: Setup, id: string) {
  if ((await store.get(`revoked:${id}`)) !== undefined) return 'revoked';
  return (await store.get(`grant:${id}`)) === undefined ? 'gone' : 'live';
}

/** The ids in alice's list for the client, as stored. */
async function listed({ store, clientId }: Setup): Promise<string[]> {
  const saved = await store.get(`grants-of:${hashOf(JSON.stringify(['alice', clientId]))}`);
  return (JSON.parse(saved ?? '[]') as { id: string }[]).map((e) => e.id);
}

const endedEvents = ({ server }: Setup) =>
  (server.events as { type: string; clientId?: string; subject?: string }[]).filter(
    (e) => e.type === 'grant_revoked',
  );

describe.each(['memory', 'file'] as const)(
  'a person authorizing one client again and again (%s store)',
  (kind) => {
    it('keeps their newest 16 grants: the 17th ends the 1st once it is exchanged, not before', async () => {
      const setup = await setUp(kind);
      const grants = [];
      for (let i = 0; i < 16; i++) grants.push(await granted(setup));
      expect(await listed(setup)).toEqual(grants.map((g) => g.id));
      const seventeenth = await codeFor(setup);
      // Authorized, not exchanged: nothing has ended.
      expect(await stateOf(setup, grants[0]!.id)).toBe('live');
      expect(endedEvents(setup)).toEqual([]);

      const res = await exchange(setup, seventeenth);
      expect(res.status).toBe(200);
      const newest = grantNamedBy(((await res.json()) as { refresh_token: string }).refresh_token)!;
      expect(await stateOf(setup, grants[0]!.id)).toBe('revoked');
      expect((await refresh(setup, grants[0]!.refreshToken)).status).toBe(400);
      expect(await stateOf(setup, grants[1]!.id)).toBe('live');
      expect((await refresh(setup, grants[1]!.refreshToken)).status).toBe(200);
      expect(await listed(setup)).toEqual([...grants.slice(1).map((g) => g.id), newest]);
      expect(endedEvents(setup)).toEqual([
        expect.objectContaining({ clientId: setup.clientId, subject: 'alice', signedInWith: 'access-token' }),
      ]);
    });

    it('keeps the 17th made by a replica whose clock runs behind, ending the oldest of the others', async () => {
      const setup = await setUp(kind);
      const grants = [];
      for (let i = 0; i < 16; i++) grants.push(await granted(setup));
      const seventeenth = await codeFor(setup);
      const real = Date.now.bind(Date);
      const behind = vi.spyOn(Date, 'now').mockImplementation(() => real() - 10 * 60_000);
      let res: Response;
      try {
        res = await exchange(setup, seventeenth);
      } finally {
        behind.mockRestore();
      }
      expect(res.status).toBe(200);
      const newest = grantNamedBy(((await res.json()) as { refresh_token: string }).refresh_token)!;
      expect(await stateOf(setup, newest)).toBe('live');
      expect(await stateOf(setup, grants[0]!.id)).toBe('revoked');
      expect(await stateOf(setup, grants[1]!.id)).toBe('live');
    });

    it('ends nothing where the 17th code is not spent (the store failing), and its retry ends the 1st', async () => {
      const setup = await setUp(kind);
      const grants = [];
      for (let i = 0; i < 16; i++) grants.push(await granted(setup));
      const seventeenth = await codeFor(setup);
      setup.store.failSpends = true;
      const failed = await exchange(setup, seventeenth);
      setup.store.failSpends = false;
      // The test server answers what the embedder was handed (the host: 503 temporarily_unavailable).
      expect([failed.status, await failed.text()]).toEqual([500, expect.stringContaining('no replica')]);
      for (const { id } of grants) expect(await stateOf(setup, id)).toBe('live');
      expect(await listed(setup)).toEqual(grants.map((g) => g.id));
      expect(endedEvents(setup)).toEqual([]);

      expect((await exchange(setup, seventeenth)).status).toBe(200);
      expect(await stateOf(setup, grants[0]!.id)).toBe('revoked');
      expect(endedEvents(setup)).toHaveLength(1);
    });

    it('ends at most the 1st, once, where the 17th code is presented twice at once', async () => {
      const setup = await setUp(kind);
      const grants = [];
      for (let i = 0; i < 16; i++) grants.push(await granted(setup));
      const seventeenth = await codeFor(setup);
      // Both presentations read the code unspent, and spend it at once.
      setup.store.holdWritesOf = `code:${hashOf(seventeenth.code)}`;
      const answers = await Promise.all([exchange(setup, seventeenth), exchange(setup, seventeenth)]);
      expect(setup.store.raced).toEqual([setup.store.holdWritesOf]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
      // The second presentation is a replay: the grant the first started goes (OAuth 2.1). The
      // 1st ends only where that grant was found live as it settled; the failed one ends nothing.
      const started = grantNamedBy(
        ((await answers.find((a) => a.ok)!.json()) as { refresh_token: string }).refresh_token,
      )!;
      expect(await stateOf(setup, started)).toBe('revoked');
      const first = await stateOf(setup, grants[0]!.id);
      expect(endedEvents(setup)).toHaveLength(first === 'revoked' ? 1 : 0);
      for (const { id } of grants.slice(1)) expect(await stateOf(setup, id)).toBe('live');
      expect(await listed(setup)).toHaveLength(16);
    });

    it('ends each pushed out once where two new grants settle at once, their revocations racing', async () => {
      const setup = await setUp(kind);
      const grants = [];
      for (let i = 0; i < 16; i++) grants.push(await granted(setup));
      const [a, b] = [await codeFor(setup), await codeFor(setup)];
      setup.store.holdWritesOf = `revoked:${grants[0]!.id}`;
      const answers = await Promise.all([exchange(setup, a), exchange(setup, b)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      // Both writers revoked the 1st: one of them marked it, and only that one told of it.
      expect(setup.store.raced).toContain(`revoked:${grants[0]!.id}`);
      expect(await stateOf(setup, grants[0]!.id)).toBe('revoked');
      expect(await stateOf(setup, grants[1]!.id)).toBe('revoked');
      for (const { id } of grants.slice(2)) expect(await stateOf(setup, id)).toBe('live');
      expect(endedEvents(setup)).toHaveLength(2);
      expect(await listed(setup)).toHaveLength(16);
    });
  },
);
