import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exchanged, keys, newGrants, record, refreshed, started } from '../test/grants-support.js';
import { fillDisk, StallingFileStore } from '../test/stalling-file-store.js';
import { ShortOfReplicas } from '../test/support.js';
import type { Grants } from './grants.js';
import { hashOf } from './secrets.js';
import { MemoryStateStore, type WriteOptions } from './state-store.js';

// A presentation whose spending write fails, its outcome unknown: what the client's retry, and
// a presentation at once, then find.

describe('a presentation whose spending the store cannot take durably (short of its replicas)', () => {
  const setUp = () => {
    const store = new ShortOfReplicas();
    return { store, grants: newGrants(store) };
  };

  it('fails with the refresh token unspent: the retry refreshes, and the grant stands', async () => {
    const { store, grants } = setUp();
    const { grant, refreshToken } = await started(grants);
    store.short = true;
    await expect(refreshed(grants, refreshToken)).rejects.toThrow('no replica');
    store.short = false;
    expect((await grants.grant(grant.id))?.refreshHash).toBe(hashOf(refreshToken));
    const next = await refreshed(grants, refreshToken);
    expect(next).toBeDefined();
    expect(await refreshed(grants, next!)).toBeDefined();
    expect(await grants.grant(grant.id)).toBeDefined();
  });

  it('fails with the code unspent and no grant: the retry starts the grant once', async () => {
    const { store, grants } = setUp();
    const code = await grants.issueCode(record);
    store.short = true;
    await expect(exchanged(grants, code)).rejects.toThrow('no replica');
    store.short = false;
    expect(await keys(store, 'grant:')).toEqual([]);

    const retried = await exchanged(grants, code);
    expect(retried?.grant).toMatchObject({ clientId: 'client-1', subject: 'alice' });
    expect(await refreshed(grants, retried!.refreshToken!)).toBeDefined();
    // Spent now: a third presentation is a replay, and ends the grant.
    expect(await exchanged(grants, code)).toBeUndefined();
    expect(await grants.grant(retried!.grant.id)).toBeUndefined();
  });

  it('takes its write back once the store answers again, a moment later: the retry is no reuse', async () => {
    const { store, grants } = setUp();
    const { grant, refreshToken } = await started(grants);
    store.short = true;
    const presented = await grants.presentRefresh(refreshToken, record.clientId);
    store.awayFor = 2;
    await expect(grants.rotate(presented!)).rejects.toThrow('no replica');
    store.short = false;
    expect(store.awayFor).toBe(0);
    expect((await grants.grant(grant.id))?.refreshHash).toBe(hashOf(refreshToken));
    expect(await refreshed(grants, refreshToken)).toBeDefined();
    expect(await grants.grant(grant.id)).toBeDefined();
  });

  it('taken back, lets a presentation at once that found it written spend the token again', async () => {
    const { store, grants } = setUp();
    const { grant, refreshToken } = await started(grants);
    const first = await grants.presentRefresh(refreshToken, record.clientId);
    const second = await grants.presentRefresh(refreshToken, record.clientId);
    let secondAnswer: Promise<string | undefined> | undefined;
    // The first's write stands when the second's compare-and-set runs; the second reads after
    // the first took it back.
    store.beforeGet = async () => {
      store.short = false;
      store.beforeGet = () => firstFailed;
      secondAnswer = grants.rotate(second!);
    };
    store.short = true;
    const firstFailed = grants.rotate(first!).catch((e: Error) => e.message);
    expect(await firstFailed).toMatch('no replica');
    const next = await secondAnswer;
    expect(next).toBeDefined();
    expect((await grants.grant(grant.id))?.refreshHash).toBe(hashOf(next!));
    expect(await refreshed(grants, next!)).toBeDefined();
  });
});

/**
 * Short of replicas only when spending (a grant is written, a code's mark is not); tells of each
 * write of a code's record (not of the person's grant list's, written on the way too).
 */
class SpendsShort extends ShortOfReplicas {
  spent?: (written: boolean, value: string) => void;
  override set(key: string, value: string, ttlSeconds?: number) {
    return super.set(key, value, ttlSeconds);
  }
  override async compareAndSet(
    k: string,
    expected: string | undefined,
    value: string,
    ttl?: number,
    o?: object,
  ) {
    const written = await super.compareAndSet(k, expected, value, ttl, o);
    if (k.startsWith('code:')) this.spent?.(written, value);
    return written;
  }
}

describe('a presentation whose spending is taken back', () => {
  it('lets a presentation at once that found it written spend the code again', async () => {
    const store = new SpendsShort();
    const grants = newGrants(store);
    const code = await grants.issueCode(record);
    const [first, second] = [await grants.presentCode(code), await grants.presentCode(code)];
    let [lost, back] = [() => {}, () => {}];
    const secondLost = new Promise<void>((resolve) => (lost = resolve));
    const tookBack = new Promise<void>((resolve) => (back = resolve));
    store.spent = (written, value) => (!written ? lost() : value.startsWith('spent') || back());
    let secondAnswer: ReturnType<Grants['start']> | undefined;
    // The first's mark stands when the second's compare-and-set runs; the second reads after
    // the first took it back.
    store.beforeGet = async (key) => {
      if (!key.startsWith('code:')) return;
      store.short = false;
      store.beforeGet = (key) => (key.startsWith('code:') ? tookBack : Promise.resolve());
      secondAnswer = grants.start(second!, true);
      await secondLost;
    };
    store.short = true;
    await expect(grants.start(first!, true)).rejects.toThrow('no replica');
    const started = await secondAnswer;
    expect(await grants.grant(started!.grant.id)).toMatchObject({ subject: 'alice' });
    expect(await refreshed(grants, started!.refreshToken!)).toBeDefined();
  });

  afterEach(() => vi.useRealTimers());
  const MINUTE = 60_000;

  it('leaves the refresh token the lifetime it had left, not a fresh one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new ShortOfReplicas();
    const grants = newGrants(store);
    const { grant, refreshToken } = await started(grants);
    vi.setSystemTime(Date.now() + 40 * MINUTE);
    store.short = true;
    await expect(refreshed(grants, refreshToken)).rejects.toThrow('no replica');
    store.short = false;
    vi.setSystemTime(Date.now() + 15 * MINUTE);
    expect((await grants.grant(grant.id))?.refreshHash).toBe(hashOf(refreshToken));
    vi.setSystemTime(Date.now() + 10 * MINUTE);
    expect(await grants.grant(grant.id)).toBeUndefined();
  });

  it('leaves the code the lifetime it had left, not a fresh one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new SpendsShort();
    const grants = newGrants(store);
    const code = await grants.issueCode(record);
    vi.setSystemTime(Date.now() + 40_000);
    store.short = true;
    await expect(exchanged(grants, code)).rejects.toThrow('no replica');
    store.short = false;
    vi.setSystemTime(Date.now() + 10_000);
    expect(await grants.presentCode(code)).toBeDefined();
    vi.setSystemTime(Date.now() + 15_000);
    expect(await grants.presentCode(code)).toBeUndefined();
  });
});

/**
 * A store that takes a spending write (a code's or a grant's, durably) and then stops answering,
 * its acknowledgement lost: a failover or restart longer than a presentation waits to take the
 * write back, until `back()`. Only once `armed`.
 */
class GoneAfterSpending extends MemoryStateStore {
  armed = false;
  away = false;
  back() {
    this.away = false;
  }
  override async get(key: string) {
    if (this.away) throw new Error('the store is away');
    return super.get(key);
  }
  override async compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlSeconds?: number,
    options?: WriteOptions,
  ) {
    if (this.away) throw new Error('the store is away');
    const written = await super.compareAndSet(key, expected, value, ttlSeconds);
    if (!this.armed || !options?.durable || !/^(code|grant):/.test(key)) return written;
    [this.armed, this.away] = [false, true];
    throw new Error('no replica acknowledged the write');
  }
}

/** A grant whose refresh the store took and never acknowledged, silent past the take-back's wait. */
async function refreshUnanswered() {
  const store = new GoneAfterSpending();
  const grants = newGrants(store);
  const { grant, refreshToken } = await started(grants);
  store.armed = true;
  await expect(refreshed(grants, refreshToken)).rejects.toThrow('no replica');
  return { store, grants, grant, refreshToken };
}

describe('a presentation whose spending the store never answers about while it waits (a long failover)', () => {
  it('lets the client’s retry on the same host refresh: no reuse, and the grant stands', async () => {
    const { store, grants, grant, refreshToken } = await refreshUnanswered();
    // The rotation stands in the store, the store answering again before anything took it back.
    store.back();
    expect((await grants.grant(grant.id))?.refreshHash).not.toBe(hashOf(refreshToken));
    const next = await refreshed(grants, refreshToken);
    expect(next).toBeDefined();
    expect((await grants.grant(grant.id))?.refreshHash).toBe(hashOf(next!));
    expect(await refreshed(grants, next!)).toBeDefined();
  }, 15_000);

  it('takes the rotation back in the background once the store answers: a retry on another replica refreshes', async () => {
    const { store, grants, grant, refreshToken } = await refreshUnanswered();
    store.back();
    await expect
      .poll(async () => (await grants.grant(grant.id))?.refreshHash, { timeout: 10_000 })
      .toBe(hashOf(refreshToken));
    const replica = newGrants(store);
    expect(await refreshed(replica, refreshToken)).toBeDefined();
    expect(await grants.grant(grant.id)).toBeDefined();
  }, 20_000);

  it('lets the client’s retry of its code start the grant, once: a third presentation is a replay', async () => {
    const store = new GoneAfterSpending();
    const grants = newGrants(store);
    const code = await grants.issueCode(record);
    store.armed = true;
    await expect(exchanged(grants, code)).rejects.toThrow('no replica');
    store.back();
    expect(await keys(store, 'grant:')).toHaveLength(1);
    const retried = await exchanged(grants, code);
    expect(retried?.grant).toMatchObject({ clientId: 'client-1', subject: 'alice' });
    // The failed presentation's grant, which nobody holds, went with its spend.
    expect(await keys(store, 'grant:')).toEqual([`grant:${retried!.grant.id}`]);
    expect(await refreshed(grants, retried!.refreshToken!)).toBeDefined();
    expect(await exchanged(grants, code)).toBeUndefined();
    expect(await grants.grant(retried!.grant.id)).toBeUndefined();
  }, 15_000);

  it('ends the grant when the client revokes the token meanwhile, rather than bring it back', async () => {
    const { store, grants, grant, refreshToken } = await refreshUnanswered();
    store.back();
    // What the revocation endpoint does with a refresh token: its grant, then revoked.
    const revoking = await grants.grantOfRefresh(refreshToken);
    expect(revoking?.id).toBe(grant.id);
    await grants.revoke(revoking!.id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await refreshed(newGrants(store), refreshToken)).toBeUndefined();
  }, 15_000);

  it('still finds reuse in an older token of the grant while it waits to take a rotation back', async () => {
    const store = new GoneAfterSpending();
    const grants = newGrants(store);
    const { grant, refreshToken: first } = await started(grants);
    const second = await refreshed(grants, first);
    store.armed = true;
    await expect(refreshed(grants, second!)).rejects.toThrow('no replica');
    store.back();
    expect(await refreshed(grants, first)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
  }, 15_000);

  it('still finds reuse in a token its answer handed out', async () => {
    const { store, grants, grant, refreshToken } = await refreshUnanswered();
    store.back();
    const next = await refreshed(grants, refreshToken);
    expect(await refreshed(grants, next!)).toBeDefined();
    // `next` was answered and rotated since: presented again, it is reuse.
    expect(await refreshed(grants, next!)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
  }, 15_000);
});

describe('a presentation whose spending write fails on the state file (a full disk)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the refresh token current for a presentation meanwhile: no reuse, and the retry refreshes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'grants-full-disk-'));
    dirs.push(dir);
    const path = join(dir, 'authorization-server.json');
    const store = new StallingFileStore(path, { lock: (at) => new FileLock(at) });
    const grants = newGrants(store);
    const { grant, refreshToken } = await started(grants);
    const go = store.stallNext();
    fillDisk(path);
    const first = refreshed(grants, refreshToken).catch((e: unknown) => e);
    await expect.poll(() => store.stalled).toBe(true);
    // The same token presented while the first's spending is written (a retry on a lost answer).
    const second = grants.presentRefresh(refreshToken, record.clientId);
    // Its reads made (and, were it taken for reuse, its revocation waiting on the write under way).
    await new Promise(setImmediate);
    go();
    expect(await first).toMatchObject({ info: { code: 'store_unavailable' } });
    expect((await second)?.grant.id).toBe(grant.id);
    expect(await grants.grant(grant.id)).toBeDefined();
    const next = await refreshed(grants, refreshToken);
    expect(next).toBeDefined();
    expect((await grants.grant(grant.id))?.refreshHash).toBe(hashOf(next!));
  });
});
