import { describe, expect, it } from 'vitest';
import { type CodeRecord, Grants, type RedeemedCode } from './grants.js';
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
    expect(await grants.redeemRefresh(refreshToken)).toBeUndefined();
  });

  it('a revocation that lands while a refresh is between redeeming and rotating stays revoked', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    // Two holders of one refresh token, on two replicas: the first redeems it...
    const won = await grants.redeemRefresh(refreshToken);
    expect(won?.id).toBe(grant.id);
    // ...the second's presentation reads as reuse and revokes the grant...
    expect(await grants.redeemRefresh(refreshToken)).toBeUndefined();
    // ...and the first then rotates, as the token endpoint does next.
    const next = await grants.rotate(won!);
    expect(await grants.grant(grant.id)).toBeUndefined();
    expect(await grants.redeemRefresh(next)).toBeUndefined();
  });

  it('two presentations of one refresh token at once revoke the grant, whichever comes first', async () => {
    const grants = newGrants();
    const { grant, refreshToken } = await started(grants);
    const answers = await Promise.all([
      grants.redeemRefresh(refreshToken),
      grants.redeemRefresh(refreshToken),
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
