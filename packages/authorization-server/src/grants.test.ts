import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { describe, expect, it } from 'vitest';
import { ShortOfReplicas } from '../test/support.js';
import { FileStateStore } from './file-state-store.js';
import { type CodeRecord, Grants, type RedeemedCode } from './grants.js';
import { hashOf } from './secrets.js';
import { MemoryStateStore } from './state-store.js';

const record: CodeRecord = {
  clientId: 'client-1',
  redirectUri: 'http://127.0.0.1/callback',
  codeChallenge: 'c'.repeat(43),
  subject: 'alice',
  scopes: ['tools:read'],
  resource: 'https://tools.example.com/mcp',
};

/** A grant as the token endpoint starts one for a client that may refresh, and its refresh token. */
async function refreshable(grants: Grants, redeemed: RedeemedCode) {
  const { grant, refreshToken } = await grants.start(redeemed, true);
  return { grant, refreshToken: refreshToken! };
}

/** A grant as the token endpoint starts one: a code issued, redeemed, started. */
async function started(grants: Grants) {
  const redeemed = await grants.redeemCode(await grants.issueCode(record));
  return refreshable(grants, redeemed!);
}

const newGrants = () =>
  new Grants(new MemoryStateStore(), { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 3600 });

describe('Grants', () => {
  it('two presentations of one code at once revoke the grant the first starts', async () => {
    const grants = newGrants();
    const code = await grants.issueCode(record);
    const answers = await Promise.all([grants.redeemCode(code), grants.redeemCode(code)]);
    const won = answers.filter((a) => a !== undefined);
    expect(won).toHaveLength(1);
    const { grant, refreshToken } = await refreshable(grants, won[0]!);
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await grants.redeemRefresh(refreshToken, record.clientId)).toBeUndefined();
  });

  it('a revocation that lands while a refresh is between redeeming and rotating stays revoked', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    // Two holders of one refresh token, on two replicas: the first redeems it...
    const won = await grants.redeemRefresh(refreshToken, record.clientId);
    expect(won?.id).toBe(grant.id);
    // ...the second's presentation reads as reuse and revokes the grant...
    expect(await grants.redeemRefresh(refreshToken, record.clientId)).toBeUndefined();
    // ...and the first then rotates, as the token endpoint does next.
    const next = await grants.rotate(won!);
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await grants.redeemRefresh(next, record.clientId)).toBeUndefined();
  });

  it('two presentations of one refresh token at once revoke the grant, whichever comes first', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    const answers = await Promise.all([
      grants.redeemRefresh(refreshToken, record.clientId),
      grants.redeemRefresh(refreshToken, record.clientId),
    ]);
    expect(answers.filter((a) => a !== undefined).length).toBeLessThanOrEqual(1);
    expect(await grants.grant(grant.id)).toBeUndefined();
  });

  it('a revoked grant is gone, and an unrevoked one stands', async () => {
    const grants = newGrants();
    const kept = await started(grants);
    const ended = await started(grants);
    await grants.revoke(ended.grant.id);
    expect(await grants.grant(ended.grant.id)).toBeUndefined();
    expect(await grants.grant(kept.grant.id)).toMatchObject({ id: kept.grant.id, subject: 'alice' });
  });
});

describe('a grant without a refresh token', () => {
  it('lives as long as its access token, then is gone', async () => {
    const clock = { now: 1_000_000 };
    const grants = new Grants(new MemoryStateStore(() => clock.now), {
      codeSeconds: 60,
      accessSeconds: 600,
      refreshSeconds: 3600,
    });
    const redeemed = await grants.redeemCode(await grants.issueCode(record));
    const { grant, refreshToken } = await grants.start(redeemed!, false);
    expect(refreshToken).toBeUndefined();
    expect(grant.refreshHash).toBeUndefined();
    clock.now += 600_000;
    expect(await grants.grant(grant.id)).toMatchObject({ id: grant.id, subject: 'alice' });
    clock.now += 61_000;
    expect(await grants.grant(grant.id)).toBeUndefined();
  });
});

describe('a presentation whose answer the store cannot take durably', () => {
  const setUp = () => {
    const store = new ShortOfReplicas();
    return {
      store,
      grants: new Grants(store, { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 3600 }),
    };
  };

  it('fails with the refresh token put back: the retry refreshes, the grant stands', async () => {
    const { store, grants } = setUp();
    const { grant, refreshToken } = await started(grants);
    store.short = true;
    const redeemed = await grants.redeemRefresh(refreshToken, record.clientId).catch((e: Error) => e);
    // The spent mark itself short of replicas: taken back.
    expect(redeemed).toBeInstanceOf(Error);
    store.short = false;
    const held = await grants.redeemRefresh(refreshToken, record.clientId);
    expect(held?.id).toBe(grant.id);
    store.short = true;
    await expect(grants.rotate(held!)).rejects.toThrow('no replica');
    store.short = false;

    const again = await grants.redeemRefresh(refreshToken, record.clientId);
    expect(again?.id).toBe(grant.id);
    const next = await grants.rotate(again!);
    // Only the grant's current refresh token is left: the failed rotation's is gone.
    expect(await refreshKeys(store)).toHaveLength(1);
    expect((await grants.redeemRefresh(next, record.clientId))?.id).toBe(grant.id);
  });

  it("takes back only its own spent mark: another presentation's stands, and the next reuse revokes", async () => {
    const { store, grants } = setUp();
    const { grant, refreshToken } = await started(grants);
    // Another presentation of the token, on another replica, has marked it and not yet taken it.
    await store.setIfAbsent(`refresh-used:${hashOf(refreshToken)}`, `${grant.id} theirs`);
    store.short = true;
    await expect(grants.redeemRefresh(refreshToken, record.clientId)).rejects.toThrow('no replica');
    store.short = false;
    expect(await grants.redeemRefresh(refreshToken, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
  });

  it('fails with the code put back: the retry starts the grant once', async () => {
    const { store, grants } = setUp();
    const code = await grants.issueCode(record);
    const redeemed = await grants.redeemCode(code);
    store.short = true;
    await expect(grants.start(redeemed!, true)).rejects.toThrow('no replica');
    store.short = false;
    expect(await grants.grant(redeemed!.grantId)).toBeUndefined();
    expect(await refreshKeys(store)).toHaveLength(0);

    const retried = await grants.redeemCode(code);
    expect(retried).toMatchObject({ clientId: 'client-1', subject: 'alice' });
    const { grant, refreshToken } = await refreshable(grants, retried!);
    expect((await grants.redeemRefresh(refreshToken!, record.clientId))?.id).toBe(grant.id);
    // Spent now: a third presentation is reuse, and ends the grant.
    expect(await grants.redeemCode(code)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
  });
});

/** A file store whose disk fills between a presentation's spent mark and its take of the record. */
class FillsBeforeTake extends FileStateStore {
  /** The temporary file of the next write, to open as /dev/full (writing it fails with ENOSPC). */
  fill: string | undefined;
  override take(key: string): Promise<string | undefined> {
    if (this.fill) symlinkSync('/dev/full', this.fill);
    this.fill = undefined;
    return super.take(key);
  }
}

describe('a presentation whose record the file store could not take (its disk full)', () => {
  it('leaves neither its mark nor a spent token: the retry refreshes, and the grant stands', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'grants-disk-full-')), 'authorization-server.json');
    const store = new FillsBeforeTake(file, { lock: (at) => new FileLock(at) });
    const grants = new Grants(store, { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 3600 });
    const { grant, refreshToken } = await started(grants);
    store.fill = `${file}.${process.pid}.tmp`;
    await expect(grants.redeemRefresh(refreshToken, record.clientId)).rejects.toMatchObject({
      code: 'store_unavailable',
    });
    expect(await store.get(`refresh-used:${hashOf(refreshToken)}`)).toBeUndefined();
    const again = await grants.redeemRefresh(refreshToken, record.clientId);
    expect(again?.id).toBe(grant.id);
    expect((await grants.redeemRefresh(await grants.rotate(again!), record.clientId))?.id).toBe(grant.id);
    rmSync(dirname(file), { recursive: true });
  });
});

/** The refresh tokens' records the store holds. */
async function refreshKeys(store: MemoryStateStore): Promise<string[]> {
  const entries = (store as unknown as { entries: Map<string, unknown> }).entries;
  return [...entries.keys()].filter((k) => k.startsWith('refresh:'));
}

describe('a grant refreshed again and again', () => {
  async function churned(rotations: number) {
    const clock = { now: 1_000_000 };
    const store = new MemoryStateStore(() => clock.now);
    const grants = new Grants(store, { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 30 * 86_400 });
    const { grant, refreshToken: first } = await started(grants);
    const tokens = [first];
    for (let i = 0; i < rotations; i++) {
      tokens.push(await grants.rotate((await grants.redeemRefresh(tokens.at(-1)!, record.clientId))!));
      clock.now += 1_000;
    }
    // Past the minute a spent token is marked for.
    clock.now += 3_600_000;
    return { store, grants, grant, tokens, clock };
  }

  it('keeps a bounded number of records, and a token it spent lately still revokes it', async () => {
    const { store, grants, grant, tokens, clock } = await churned(300);
    const entries = (store as unknown as { entries: Map<string, { expiresAt?: number }> }).entries;
    const live = [...entries.values()].filter((e) => e.expiresAt === undefined || e.expiresAt > clock.now);
    expect(live.length).toBeLessThanOrEqual(5);
    const spentLately = tokens.at(-3)!;
    // Another client presenting it: refused, the grant stands.
    expect(await grants.redeemRefresh(spentLately, 'client-2')).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    // Its own client presenting it again: the token leaked (or the client lost an answer).
    expect(await grants.redeemRefresh(spentLately, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await grants.redeemRefresh(tokens.at(-1)!, record.clientId)).toBeUndefined();
  });

  it('is not revoked by a made-up token naming it, nor by one spent many rotations ago', async () => {
    const { grants, grant, tokens } = await churned(20);
    // The grant id is in every access token and a public client is known by its id alone.
    expect(await grants.redeemRefresh(`${grant.id}.${'A'.repeat(43)}`, record.clientId)).toBeUndefined();
    expect(await grants.redeemRefresh(tokens[0]!, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    const live = await grants.redeemRefresh(tokens.at(-1)!, record.clientId);
    expect(live?.id).toBe(grant.id);
  });
});
