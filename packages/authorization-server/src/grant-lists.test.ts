import { afterEach, describe, expect, it, vi } from 'vitest';
import { newGrants, record, refreshed, started } from '../test/grants-support.js';
import { hashOf } from './secrets.js';
import { type Entry, MemoryStateStore } from './state-store.js';

// A person's list of grants for a client must outlive every grant in it: a refresh moves a
// grant's expiry on, and a list that expired 30 days after its last grant was added would
// forget grants still refreshing, which the bound would then never end.

const HOUR = 3_600_000;
const LIST = `grants-of:${hashOf(JSON.stringify([record.subject, record.clientId]))}`;

/** The list's record as the memory store holds it: its grant ids and when it expires. */
function listOf(store: MemoryStateStore) {
  const entry = (store as unknown as { entries: Map<string, Entry> }).entries.get(LIST);
  if (entry === undefined || entry.expiresAt! <= Date.now()) return undefined;
  return { ids: (JSON.parse(entry.value) as { id: string }[]).map((e) => e.id), expiresAt: entry.expiresAt! };
}

afterEach(() => vi.useRealTimers());

describe("a person's list of grants for a client", () => {
  it('lives as long as its longest-lived grant, which each refresh moves on', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStateStore();
    // Grants that live an hour unless refreshed (LIFETIMES).
    const grants = newGrants(store);
    const kept = await started(grants);
    const left = await started(grants);
    expect(listOf(store)?.ids).toEqual([kept.grant.id, left.grant.id]);
    vi.setSystemTime(Date.now() + 0.8 * HOUR);
    const next = await refreshed(grants, kept.refreshToken);
    expect(listOf(store)?.expiresAt).toBe((await grants.grant(kept.grant.id))?.expiresAt);
    vi.setSystemTime(Date.now() + 0.5 * HOUR);
    // The grant not refreshed has expired; the list, and the refreshed one in it, have not.
    expect(await grants.grant(left.grant.id)).toBeUndefined();
    expect(listOf(store)?.ids).toContain(kept.grant.id);
    expect(await refreshed(grants, next!)).toBeDefined();
  });

  it('takes back a grant it lost (made before lists were kept) at its next refresh', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStateStore();
    const grants = newGrants(store);
    const older = await started(grants);
    vi.setSystemTime(Date.now() + 1_000);
    const newer = await started(grants);
    await store.delete(LIST);
    await refreshed(grants, newer.refreshToken);
    await refreshed(grants, older.refreshToken);
    // In the order they were made, whatever the order of their refreshes.
    expect(listOf(store)?.ids).toEqual([older.grant.id, newer.grant.id]);
  });
});
