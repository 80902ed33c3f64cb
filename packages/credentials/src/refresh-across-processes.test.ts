import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredToken } from '@toolhost/core';
import type { RefreshLock } from '@toolhost/redis-store';
import { afterEach, describe, expect, it } from 'vitest';
import { EncryptedFileTokenStore } from './encrypted-file-token-store.js';
import { FileRefreshLock } from './file-refresh-lock.js';
import { MemoryTokenStore } from './memory-token-store.js';
import { OAuthAuthProvider } from './oauth-provider.js';
import { age } from './test-support/stale-locks.js';

const KEY = 'a-long-enough-test-key';
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/**
 * A vendor that rotates refresh tokens, as Airtable does: each is good once, answered after a
 * moment (or, while `held`, once let go); a second use of one is taken for theft and ends the
 * grant (every token of it).
 */
async function rotatingVendor() {
  const spent = new Set<string>();
  const sent: string[] = [];
  let revoked = false;
  let issued = 0;
  let held: Promise<void> = Promise.resolve();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const refreshToken = new URLSearchParams(body).get('refresh_token') ?? '';
      sent.push(refreshToken);
      const reused = spent.has(refreshToken);
      spent.add(refreshToken);
      if (reused) revoked = true;
      const answer = () => {
        res.setHeader('content-type', 'application/json');
        if (revoked) {
          res.statusCode = 400;
          return res.end(JSON.stringify({ error: 'invalid_grant' }));
        }
        issued += 1;
        res.end(
          JSON.stringify({
            access_token: `at-${issued}`,
            refresh_token: `rt-${issued}`,
            token_type: 'bearer',
            expires_in: 3600,
          }),
        );
      };
      void held.then(() => setTimeout(answer, 100));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Holds the answers until the function returned is called. */
  const hold = () => {
    let letGo = () => {};
    held = new Promise((resolve) => (letGo = resolve));
    return letGo;
  };
  return { url, sent, revoked: () => revoked, hold };
}

/** Ana's token as every test starts from it: expired, so that the next call refreshes rt-0. */
const expiredToken = () => ({
  accessToken: 'at-0',
  refreshToken: 'rt-0',
  expiresAt: Date.now() - 1000,
  scopes: ['data.records:read'],
});

/** The OAuth provider of the rotating vendor's client, as the hosts configure it. */
const providerOf = (vendor: { url: string }) => ({
  id: 'grid',
  clientId: 'client',
  authorizeUrl: `${vendor.url}/authorize`,
  tokenUrl: `${vendor.url}/token`,
});

describe('two hosts on one data directory refreshing one user at once', () => {
  it('send the refresh token once, and both go on with the token it brought', async () => {
    const vendor = await rotatingVendor();
    const dir = mkdtempSync(join(tmpdir(), 'refresh-two-'));
    const config = providerOf(vendor);
    await EncryptedFileTokenStore.inDirectory(dir, KEY).set('grid', 'ana', expiredToken());
    // Two processes: each its own provider and its own copy of the store, one file between them.
    const hosts = [0, 1].map(
      () => new OAuthAuthProvider(config, EncryptedFileTokenStore.inDirectory(dir, KEY)),
    );
    const request = { userId: 'ana', scopes: ['data.records:read'] };
    const answers = await Promise.allSettled(hosts.map((host) => host.getCredentials(request)));
    expect(vendor.sent).toEqual(['rt-0']);
    expect(vendor.revoked()).toBe(false);
    expect(answers[0]).toEqual({ status: 'fulfilled', value: { kind: 'bearer', token: 'at-1' } });
    // The other waited for it, or was told to try again (retryable), and then gets it.
    const again = await hosts[1]!.getCredentials(request);
    expect(again).toEqual({ kind: 'bearer', token: 'at-1' });
    await Promise.all(hosts.map((host) => host.close()));
  });
});

/** A token store that, once told to, stands still in the read a refresh makes under its lock. */
class Stalling extends EncryptedFileTokenStore {
  stall: (() => Promise<void>) | undefined;
  reads = 0;
  override async get(providerId: string, userId: string) {
    const token = await super.get(providerId, userId);
    // The first read decides to refresh; the second is the one under the lock.
    this.reads += 1;
    if (this.reads === 2 && this.stall) await this.stall();
    return token;
  }
}

describe('a host that stood still past its refresh lock', () => {
  it('does not send the refresh token its successor sent meanwhile', async () => {
    const vendor = await rotatingVendor();
    const dir = mkdtempSync(join(tmpdir(), 'refresh-stalled-'));
    const config = providerOf(vendor);
    const file = join(dir, 'tokens.enc.json');
    await new EncryptedFileTokenStore(file, KEY).set('grid', 'ana', expiredToken());
    const stalling = new Stalling(file, KEY);
    const paused = new OAuthAuthProvider(config, stalling);
    const successor = new OAuthAuthProvider(config, new EncryptedFileTokenStore(file, KEY));
    const request = { userId: 'ana', scopes: ['data.records:read'] };
    let theirs: Promise<unknown> | undefined;
    stalling.stall = async () => {
      // Standing still past the lock's life: another host takes it over and sends the refresh.
      const lock = `${file}.refresh-${createHash('sha256').update('grid\0ana').digest('hex').slice(0, 32)}.lock`;
      age(lock);
      theirs = successor.getCredentials(request);
      await expect.poll(() => vendor.sent.length).toBe(1);
    };
    const mine = await paused.getCredentials(request);
    expect(await theirs).toEqual({ kind: 'bearer', token: 'at-1' });
    expect(vendor.sent).toEqual(['rt-0']);
    expect(vendor.revoked()).toBe(false);
    expect(mine).toEqual({ kind: 'bearer', token: 'at-1' });
    await Promise.all([paused.close(), successor.close()]);
  });
});

/**
 * A token store that, once told to, stands still in the write of a refresh's mark: after the
 * refresh lock was taken and found still held, before the mark is stored.
 */
class StallingMark extends EncryptedFileTokenStore {
  /** Runs the next write of a mark (`write`), standing still around it. */
  around: ((write: () => Promise<boolean>) => Promise<boolean>) | undefined;
  override async replace(providerId: string, userId: string, token: StoredToken, over?: StoredToken) {
    const around = token.refreshSentAt !== undefined ? this.around : undefined;
    this.around = undefined;
    const write = () => super.replace(providerId, userId, token, over);
    return around ? around(write) : write();
  }
}

/** As an embedder's store may be: its `replace` writes over any token stored, without comparing (the interface allows it). */
class LaxStallingMark extends StallingMark {
  override replace(providerId: string, userId: string, token: StoredToken) {
    return super.replace(providerId, userId, token);
  }
}

/**
 * A host standing still in the write of its refresh's mark, past its refresh lock, while another
 * host takes the lock over and sends the refresh token: whether the refresh token reaches the
 * vendor twice, and what each host ends with.
 */
async function stoodStillMarking(store: (file: string) => StallingMark) {
  const vendor = await rotatingVendor();
  const dir = mkdtempSync(join(tmpdir(), 'refresh-marking-'));
  const config = {
    ...providerOf(vendor),
    // Where a host that lost the grant would send the person to authorize again.
    redirectUri: 'http://127.0.0.1:9/oauth/callback/grid',
  };
  const file = join(dir, 'tokens.enc.json');
  await new EncryptedFileTokenStore(file, KEY).set('grid', 'ana', expiredToken());
  const stalling = store(file);
  // Its own lock renews every 20 minutes: never while it stands still here, as in a real pause.
  const paused = new OAuthAuthProvider(config, stalling, Date.now, new FileRefreshLock(file, 3_600_000));
  const successor = new OAuthAuthProvider(config, new EncryptedFileTokenStore(file, KEY));
  const request = { userId: 'ana', scopes: ['data.records:read'] };
  let theirs: Promise<unknown> | undefined;
  stalling.around = async (write) => {
    age(`${file}.refresh-${createHash('sha256').update('grid\0ana').digest('hex').slice(0, 32)}.lock`);
    // The successor's refresh at the vendor, its answer not yet back: its mark is in the file.
    const answer = vendor.hold();
    theirs = successor.getCredentials(request);
    await expect.poll(() => vendor.sent.length).toBe(1);
    try {
      return await write();
    } finally {
      answer();
    }
  };
  const mine = await paused.getCredentials(request).catch((e: unknown) => e);
  const outcome = {
    mine,
    theirs: await theirs?.catch((e: unknown) => e),
    sent: vendor.sent,
    revoked: vendor.revoked(),
  };
  await Promise.all([paused.close(), successor.close()]);
  return outcome;
}

describe('a host that stood still past its refresh lock while marking its refresh', () => {
  const once = {
    mine: { kind: 'bearer', token: 'at-1' },
    theirs: { kind: 'bearer', token: 'at-1' },
    sent: ['rt-0'],
    revoked: false,
  };

  it("does not store its mark over its successor's, and waits for its token", async () => {
    expect(await stoodStillMarking((file) => new StallingMark(file, KEY))).toEqual(once);
  });

  it("sends nothing once its lock is lost, even where the store took its mark over the successor's", async () => {
    expect(await stoodStillMarking((file) => new LaxStallingMark(file, KEY))).toEqual(once);
  });
});

describe('a refresh lock lost each time as soon as taken', () => {
  it('is waited on at the pace of any wait, until the deadline, and nothing is sent', {
    timeout: 60_000,
  }, async () => {
    const vendor = await rotatingVendor();
    const config = providerOf(vendor);
    const store = new MemoryTokenStore();
    await store.set('grid', 'ana', expiredToken());
    // An embedder's lock whose holder finds it taken over at once, every time (as one whose
    // hold keeps vanishing would): each take is one step of the wait, never a spin.
    let taken = 0;
    const lost: RefreshLock = {
      ttlMs: 200,
      acquire: async () => {
        taken += 1;
        if (taken > 1000) throw new Error('taken a thousand times: the wait spins');
        return Object.assign(async () => {}, { held: () => false });
      },
    };
    const host = new OAuthAuthProvider({ ...config, tokenRequestTimeoutMs: 30_000 }, store, Date.now, lost);
    const started = Date.now();
    const outcome = await host.getCredentials({ userId: 'ana', scopes: [] }).catch((e: unknown) => e);
    expect(outcome).toMatchObject({ info: { code: 'upstream_unavailable', retryable: true } });
    expect(String((outcome as Error).message)).toMatch(/still refreshing/);
    // Its deadline: the lock's life and five seconds, waited in steps of 50 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_200);
    expect(taken).toBeLessThan(150);
    expect(vendor.sent).toEqual([]);
    await host.close();
  });
});

describe('FileRefreshLock', () => {
  it('is held by one at a time, kept while its holder lives, and taken over once it stopped renewing it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'refresh-lock-')), 'tokens.enc.json');
    const [a, b] = [new FileRefreshLock(file, 300), new FileRefreshLock(file, 300)];
    const release = await a.acquire('grid', 'ana');
    expect(release).toBeDefined();
    expect(await b.acquire('grid', 'ana')).toBeUndefined();
    const another = await b.acquire('grid', 'bo');
    expect(another).toBeDefined();
    await another!();
    // Renewed while held: still held past its lifetime.
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await b.acquire('grid', 'ana')).toBeUndefined();
    await release!({ failed: true });
    // A holder that renews only every 20 s: within this test, one that stopped renewing. (One
    // renewing every 100 ms could renew between the aging below and the take, on a loaded machine.)
    const next = await new FileRefreshLock(file, 60_000).acquire('grid', 'ana');
    expect(next).toBeDefined();
    // Its holder gone without a word (no renewal): free again once its lifetime passed.
    const dir = join(file, '..');
    const locks = readdirSync(dir).filter((f) => f.includes('.refresh-'));
    expect(locks).toHaveLength(1);
    age(join(dir, locks[0]!));
    expect(await a.acquire('grid', 'ana')).toBeDefined();
  });
});

/**
 * A store on a master whose replicas acknowledge late: each write of a refresh's mark, and each
 * taking back, does what `writes` says next (`lands`: written, reported failed; `fails`: not
 * written, reported failed; `between`: another replica's mark is written there, then this one's
 * reported failed), and any other write goes through.
 */
class LateAcks extends MemoryTokenStore {
  constructor(private readonly writes: ('lands' | 'fails' | 'between')[]) {
    super();
  }
  override async replace(providerId: string, userId: string, token: StoredToken, over?: StoredToken) {
    const marking = token.refreshSentAt !== undefined || over?.refreshSentAt !== undefined;
    const next = marking ? this.writes.shift() : undefined;
    if (next === 'lands') await super.replace(providerId, userId, token, over);
    if (next === 'between')
      await this.set(providerId, userId, { ...token, refreshSentAt: Date.now(), refreshMark: 'theirs' });
    if (next !== undefined) throw new Error('not copied to a replica in time');
    return super.replace(providerId, userId, token, over);
  }
}

describe("a refresh whose mark's write was reported failed", () => {
  it('sends the refresh token once the store takes writes, where its own marks landed and could not be taken back', async () => {
    const vendor = await rotatingVendor();
    // The first mark lands, its taking back fails; the next call's mark, written over it, fails.
    const store = new LateAcks(['lands', 'fails', 'fails']);
    await store.set('grid', 'ana', expiredToken());
    const host = new OAuthAuthProvider(providerOf(vendor), store);
    const request = { userId: 'ana', scopes: ['data.records:read'] };
    for (let call = 0; call < 2; call += 1) {
      const failed = await host.getCredentials(request).catch((e: unknown) => e);
      expect(failed).toMatchObject({ info: { code: 'store_unavailable' } });
      expect((await store.get('grid', 'ana'))?.refreshSentAt).toBeDefined();
    }
    expect(vendor.sent).toEqual([]);
    // Its own mark, under which nothing was sent: not a refresh that went unanswered.
    expect(await host.getCredentials(request)).toEqual({ kind: 'bearer', token: 'at-1' });
    expect(vendor.sent).toEqual(['rt-0']);
    await host.close();
  });

  it("takes back its own mark only, never another replica's written meanwhile", async () => {
    const vendor = await rotatingVendor();
    const store = new LateAcks(['between']);
    await store.set('grid', 'ana', expiredToken());
    const host = new OAuthAuthProvider(providerOf(vendor), store);
    const first = await host.getCredentials({ userId: 'ana', scopes: [] }).catch((e: unknown) => e);
    expect(first).toMatchObject({ info: { code: 'store_unavailable' } });
    // The other replica is sending rt-0: without its mark, rt-0 would be sent a second time.
    expect((await store.get('grid', 'ana'))?.refreshMark).toBe('theirs');
    expect(vendor.sent).toEqual([]);
    await host.close();
  });
});
