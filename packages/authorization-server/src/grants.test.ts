import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ShortOfReplicas } from '../test/support.js';
import { FileStateStore } from './file-state-store.js';
import { type CodeRecord, Grants } from './grants.js';
import { hashOf, newSecret } from './secrets.js';
import { MemoryStateStore, type StateStore } from './state-store.js';

const record: CodeRecord = {
  clientId: 'client-1',
  redirectUri: 'http://127.0.0.1/callback',
  codeChallenge: 'c'.repeat(43),
  subject: 'alice',
  scopes: ['tools:read'],
  resource: 'https://tools.example.com/mcp',
};

const LIFETIMES = { codeSeconds: 60, accessSeconds: 600, refreshSeconds: 3600 };

const newGrants = (store: StateStore = new MemoryStateStore()) => new Grants(store, LIFETIMES);

/** A code exchanged as the token endpoint does for a client that may refresh: presented, its grant started. */
async function exchanged(grants: Grants, code: string) {
  const presented = await grants.presentCode(code);
  return presented && grants.start(presented, true);
}

/** A refresh as the token endpoint makes it for the grant's client: presented, then rotated. */
async function refreshed(grants: Grants, refreshToken: string): Promise<string | undefined> {
  const presented = await grants.presentRefresh(refreshToken, record.clientId);
  return presented && grants.rotate(presented);
}

/** A grant as the token endpoint starts one: a code issued and exchanged; its refresh token. */
async function started(grants: Grants) {
  const answer = await exchanged(grants, await grants.issueCode(record));
  return { grant: answer!.grant, refreshToken: answer!.refreshToken! };
}

describe('a code', () => {
  it('presented twice at once starts one grant, which the other presentation revokes', async () => {
    const grants = newGrants();
    const code = await grants.issueCode(record);
    const answers = await Promise.all([exchanged(grants, code), exchanged(grants, code)]);
    const won = answers.filter((a) => a !== undefined);
    expect(won).toHaveLength(1);
    expect(await grants.grant(won[0]!.grant.id)).toBeUndefined();
    expect(await refreshed(grants, won[0]!.refreshToken!)).toBeUndefined();
  });

  it('presented again after its answer is a replay: the grant it started is revoked', async () => {
    const grants = newGrants();
    const code = await grants.issueCode(record);
    const first = await exchanged(grants, code);
    expect(await grants.grant(first!.grant.id)).toMatchObject({ subject: 'alice' });
    expect(await exchanged(grants, code)).toBeUndefined();
    expect(await grants.grant(first!.grant.id)).toBeUndefined();
  });

  it('is spent by a presentation refused (a wrong verifier): the next starts nothing', async () => {
    const grants = newGrants();
    const code = await grants.issueCode(record);
    await grants.refuse((await grants.presentCode(code))!);
    expect(await grants.presentCode(code)).toBeUndefined();
  });

  it('refused, and presented again and again, leaves no records of grants to revoke', async () => {
    const store = new MemoryStateStore();
    const grants = newGrants(store);
    const code = await grants.issueCode(record);
    await grants.refuse((await grants.presentCode(code))!);
    for (let i = 0; i < 3; i++) expect(await grants.presentCode(code)).toBeUndefined();
    expect(await keys(store, 'revoked:')).toEqual([]);
    expect(await keys(store, 'grant:')).toEqual([]);
  });
});

describe('a refresh token', () => {
  it('presented again after it was rotated (stolen, and used by its client or its thief) revokes the grant', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    // Whoever presents it first is answered: a public client and its thief look alike.
    const next = await refreshed(grants, refreshToken);
    expect(next).toBeDefined();
    // The other's presentation is reuse: the grant goes, the token the first was handed with it.
    expect(await grants.presentRefresh(refreshToken, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await refreshed(grants, next!)).toBeUndefined();
  });

  it('presented twice at once revokes the grant, whichever comes first', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    const answers = await Promise.all([refreshed(grants, refreshToken), refreshed(grants, refreshToken)]);
    expect(answers.filter((a) => a !== undefined).length).toBeLessThanOrEqual(1);
    expect(await grants.grant(grant.id)).toBeUndefined();
  });

  it('presented while its grant is revoked is not rotated: the grant stays revoked', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    const presented = await grants.presentRefresh(refreshToken, record.clientId);
    await grants.revoke(grant.id);
    expect(await grants.rotate(presented!)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
  });

  it('is known for its grant only while it is current (revocation)', async () => {
    const grants = newGrants();
    const kept = await started(grants);
    const ended = await started(grants);
    const next = await refreshed(grants, kept.refreshToken);
    expect(await grants.grantOfRefresh(kept.refreshToken)).toBeUndefined();
    expect((await grants.grantOfRefresh(next!))?.id).toBe(kept.grant.id);
    await grants.revoke(ended.grant.id);
    expect(await grants.grant(ended.grant.id)).toBeUndefined();
    expect(await grants.grantOfRefresh(ended.refreshToken)).toBeUndefined();
    expect(await grants.grant(kept.grant.id)).toMatchObject({ id: kept.grant.id, subject: 'alice' });
  });
});

describe('a grant without a refresh token', () => {
  it('lives as long as its access token, then is gone', async () => {
    const clock = { now: 1_000_000 };
    const grants = newGrants(new MemoryStateStore(() => clock.now));
    const presented = await grants.presentCode(await grants.issueCode(record));
    const { grant, refreshToken } = (await grants.start(presented!, false))!;
    expect(refreshToken).toBeUndefined();
    expect(grant.refreshHash).toBeUndefined();
    clock.now += 600_000;
    expect(await grants.grant(grant.id)).toMatchObject({ id: grant.id, subject: 'alice' });
    clock.now += 61_000;
    expect(await grants.grant(grant.id)).toBeUndefined();
  });
});

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

describe('a presentation whose spending is taken back', () => {
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
    // Short of replicas only when spending: the grant is written, the code's mark is not.
    const store = new (class extends ShortOfReplicas {
      override set(key: string, value: string, ttlSeconds?: number) {
        return super.set(key, value, ttlSeconds);
      }
    })();
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

describe('two hosts on one state file', () => {
  it('spend a code and a refresh token raced on both once, and the grant is revoked', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'grants-two-hosts-')), 'authorization-server.json');
    const open = () => newGrants(new FileStateStore(file, { lock: (at) => new FileLock(at) }));
    const [a, b] = [open(), open()];
    try {
      const code = await a.issueCode(record);
      const answers = await Promise.all([exchanged(a, code), exchanged(b, code)]);
      const won = answers.filter((x) => x !== undefined);
      expect(won).toHaveLength(1);
      expect(await b.grant(won[0]!.grant.id)).toBeUndefined();

      const { grant, refreshToken } = await started(a);
      const rotated = await Promise.all([refreshed(a, refreshToken), refreshed(b, refreshToken)]);
      expect(rotated.filter((x) => x !== undefined).length).toBeLessThanOrEqual(1);
      expect(await a.grant(grant.id)).toBeUndefined();
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });
});

describe('what a version before left in the store', () => {
  it('a refresh token without a name is refreshed once, and its reuse then revokes the grant', async () => {
    const store = new MemoryStateStore();
    const grants = newGrants(store);
    const id = randomUUID();
    const unnamed = newSecret();
    const grant = { ...record, id, refreshHash: hashOf(unnamed), createdAt: Date.now() };
    await store.set(`grant:${id}`, JSON.stringify(grant), 3600);
    await store.set(`refresh:${hashOf(unnamed)}`, JSON.stringify({ grantId: id }), 3600);
    expect((await grants.grantOfRefresh(unnamed))?.id).toBe(id);
    const next = await refreshed(grants, unnamed);
    expect(next?.startsWith(`${id}.`)).toBe(true);
    expect(await refreshed(grants, unnamed)).toBeUndefined();
    expect(await grants.grant(id)).toBeUndefined();
    expect(await refreshed(grants, next!)).toBeUndefined();
  });

  it('the mark of a spent code or refresh token revokes the grant it names', async () => {
    const store = new MemoryStateStore();
    const grants = newGrants(store);
    const viaCode = await started(grants);
    const viaRefresh = await started(grants);
    const [code, refreshToken] = [newSecret(), newSecret()];
    await store.set(`code-used:${hashOf(code)}`, `${viaCode.grant.id} ${randomUUID()}`, 600);
    await store.set(`refresh-used:${hashOf(refreshToken)}`, `${viaRefresh.grant.id} ${randomUUID()}`, 3600);
    expect(await grants.presentCode(code)).toBeUndefined();
    expect(await grants.presentRefresh(refreshToken, record.clientId)).toBeUndefined();
    expect(await grants.grant(viaCode.grant.id)).toBeUndefined();
    expect(await grants.grant(viaRefresh.grant.id)).toBeUndefined();
  });
});

/** The keys the memory store holds under `prefix`. */
async function keys(store: MemoryStateStore, prefix: string): Promise<string[]> {
  const entries = (store as unknown as { entries: Map<string, unknown> }).entries;
  return [...entries.keys()].filter((k) => k.startsWith(prefix));
}

describe('the version before, sharing the store (a rolling deploy)', () => {
  it('finds the grant of each refresh token handed out by the record it reads, and none of one spent', async () => {
    const store = new MemoryStateStore();
    const grants = newGrants(store);
    const { grant, refreshToken } = await started(grants);
    const recordOf = (token: string) => store.get(`refresh:${hashOf(token)}`);
    expect(await recordOf(refreshToken)).toBe(JSON.stringify({ grantId: grant.id }));
    const next = await refreshed(grants, refreshToken);
    expect(await recordOf(next!)).toBe(JSON.stringify({ grantId: grant.id }));
    // Spent: presented there again, it is found among its grant's spent ones, which is revoked.
    expect(await recordOf(refreshToken)).toBeUndefined();
  });
});

describe('a grant refreshed again and again', () => {
  async function churned(rotations: number) {
    const clock = { now: 1_000_000 };
    const store = new MemoryStateStore(() => clock.now);
    const grants = new Grants(store, { ...LIFETIMES, refreshSeconds: 30 * 86_400 });
    const { grant, refreshToken: first } = await started(grants);
    const tokens = [first];
    for (let i = 0; i < rotations; i++) {
      tokens.push((await refreshed(grants, tokens.at(-1)!))!);
      clock.now += 1_000;
    }
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
    expect(await grants.presentRefresh(spentLately, 'client-2')).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    // Its own client presenting it again: the token leaked (or the client lost an answer).
    expect(await grants.presentRefresh(spentLately, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await refreshed(grants, tokens.at(-1)!)).toBeUndefined();
  });

  it('is not revoked by a made-up token naming it, nor by one spent many rotations ago', async () => {
    const { grants, grant, tokens } = await churned(20);
    // The grant id is in every access token and a public client is known by its id alone.
    expect(await grants.presentRefresh(`${grant.id}.${'A'.repeat(43)}`, record.clientId)).toBeUndefined();
    expect(await grants.presentRefresh(tokens[0]!, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    expect(await refreshed(grants, tokens.at(-1)!)).toBeDefined();
  });
});
