import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileLock } from '@toolhost/credentials';
import { describe, expect, it } from 'vitest';
import { exchanged, keys, LIFETIMES, newGrants, record, refreshed, started } from '../test/grants-support.js';
import { FileStateStore } from './file-state-store.js';
import { Grants } from './grants.js';
import { hashOf, newSecret } from './secrets.js';
import { MemoryStateStore } from './state-store.js';

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

  it('keeps a bounded number of records, of a bounded size, and a token it spent lately still revokes it', async () => {
    const { store, grants, grant, tokens, clock } = await churned(300);
    const entries = (store as unknown as { entries: Map<string, { expiresAt?: number }> }).entries;
    const live = [...entries.values()].filter((e) => e.expiresAt === undefined || e.expiresAt > clock.now);
    expect(live.length).toBeLessThanOrEqual(5);
    // Its record grows by a digit of its generation now and then, not by a token each rotation.
    const fewer = await churned(20);
    const recordOf = (of: { store: MemoryStateStore; grant: { id: string } }) =>
      of.store.get(`grant:${of.grant.id}`);
    expect((await recordOf({ store, grant }))!.length - (await recordOf(fewer))!.length).toBeLessThanOrEqual(
      1,
    );
    const spentLately = tokens.at(-3)!;
    // Another client presenting it: refused, the grant stands.
    expect(await grants.presentRefresh(spentLately, 'client-2')).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    // Its own client presenting it again: the token leaked (or the client lost an answer).
    expect(await grants.presentRefresh(spentLately, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await refreshed(grants, tokens.at(-1)!)).toBeUndefined();
  });

  it('is not revoked by a made-up token naming it, nor by one of a generation it did not issue', async () => {
    const { grants, grant, tokens } = await churned(20);
    const [, , tag, secret] = tokens[3]!.split('.');
    const other = (await started(grants)).refreshToken.split('.');
    // The grant id is in every access token and a public client is known by its id alone.
    const madeUp = [
      `${grant.id}.${'A'.repeat(43)}`,
      `${grant.id}.3.${'A'.repeat(22)}.${secret}`,
      // A tag of generation 3 for generation 2, and another grant's for its generation.
      `${grant.id}.2.${tag}.${secret}`,
      `${grant.id}.${other[1]}.${other[2]}.${secret}`,
      `${grant.id}.-1.${tag}.${secret}`,
    ];
    for (const token of madeUp) expect(await grants.presentRefresh(token, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    expect(await refreshed(grants, tokens.at(-1)!)).toBeDefined();
  });

  it('is revoked by a token it spent however many rotations ago, presented by its client', async () => {
    // A thief refreshes a stolen token again and again before the client presents it next.
    const { grants, grant, tokens } = await churned(20);
    // Another client presenting it: refused, the grant stands.
    expect(await grants.presentRefresh(tokens[0]!, 'client-2')).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeDefined();
    expect(await grants.presentRefresh(tokens[0]!, record.clientId)).toBeUndefined();
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await refreshed(grants, tokens.at(-1)!)).toBeUndefined();
  });
});
