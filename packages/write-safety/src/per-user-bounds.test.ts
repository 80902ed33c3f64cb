import { ToolError } from '@toolhost/core';
import type { PreparedRequest } from '@toolhost/engine';
import { describe, expect, it } from 'vitest';
import { MemoryRecords } from './expiring-records.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { Previews } from './previews.js';
import { plainRecords } from './record-codec.js';

const prepared = {
  tool: 'WriteApi.UpdateThing',
  http: { method: 'PATCH', url: 'http://127.0.0.1:9/things/1', headers: {}, body: '{}' },
} as unknown as PreparedRequest;

describe('per-user bounds on write-safety records', () => {
  it("refuses a user's preview beyond their bound, naming it, while another user's go on", async () => {
    const previews = new Previews(new MemoryRecords(), plainRecords, 60_000, 3);
    for (let i = 0; i < 3; i += 1) await previews.create('alice', prepared);
    await expect(previews.create('alice', prepared)).rejects.toThrow(
      /You have 3 previews kept, the most one user may have on this host/,
    );
    await expect(previews.create('bob', prepared)).resolves.toMatchObject({ tool: 'WriteApi.UpdateThing' });
  });

  it("refuses a user's new idempotency key beyond their bound without sending; another user's go on", async () => {
    const keys = new IdempotencyKeys(new MemoryRecords(), plainRecords, { ttlMs: 60_000, maxPerUser: 2 });
    const { send, sent } = countingSend();
    await keys.run('alice', 'k1', 'fp', send);
    await keys.run('alice', 'k2', 'fp', send);
    const refused = await keys.run('alice', 'k3', 'fp', send);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'store_unavailable', parameter: 'idempotency_key', retryable: true },
    });
    expect(sent()).toBe(2);
    // A key already holding its outcome still answers it.
    expect((await keys.run('alice', 'k1', 'fp', send)).ok).toBe(true);
    expect((await keys.run('bob', 'k1', 'fp', send)).ok).toBe(true);
    expect(sent()).toBe(3);
  });

  it('bounds the records kept in memory, as the file is bounded', async () => {
    const records = new MemoryRecords({ maxRecords: 2 });
    await records.put('a', '1', 60_000);
    await records.put('b', '2', 60_000);
    await expect(records.put('c', '3', 60_000)).rejects.toThrow(
      /in-memory store of write-safety records \(no TOOLHOST_TOKEN_KEY\) is full/,
    );
    await records.put('a', 'replaced', 60_000);
    expect(await records.get('a')).toBe('replaced');
  });
});

describe("one user's share of a store's bounds", () => {
  const big = (n: number) =>
    ({
      ...prepared,
      http: { ...prepared.http, body: JSON.stringify({ note: 'x'.repeat(n) }) },
    }) as unknown as PreparedRequest;

  it("keeps room for alice's preview when bob's large previews reach his share, within his preview bound", async () => {
    // 1 MiB of records; bob's previews of 60 KB each, well within his 100 previews.
    const records = new MemoryRecords({ maxChars: 1024 * 1024 });
    const previews = new Previews(records, plainRecords, 60_000, 100);
    let made = 0;
    let refusal: unknown;
    for (; made < 100; made += 1) {
      refusal = await previews.create('bob', big(60_000)).catch((e: unknown) => e);
      if (refusal instanceof Error) break;
    }
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(100);
    expect(ToolError.isInstance(refusal) && refusal.info).toMatchObject({
      code: 'store_unavailable',
      retryable: true,
    });
    expect((refusal as Error).message).toMatch(/the most one user may of the in-memory store .*\(a quarter/);
    // Alice, and others after her, still get theirs.
    for (const user of ['alice', 'carol', 'dave'])
      await expect(previews.create(user, big(60_000))).resolves.toMatchObject({
        tool: 'WriteApi.UpdateThing',
      });
  });

  it("bounds a user's idempotency keys by the same share, keeping every outcome once sent", async () => {
    const records = new MemoryRecords({ maxRecords: 8 });
    const keys = new IdempotencyKeys(records, plainRecords, { ttlMs: 60_000 });
    const { send, sent } = countingSend();
    expect((await keys.run('bob', 'k1', 'fp', send)).ok).toBe(true);
    expect((await keys.run('bob', 'k2', 'fp', send)).ok).toBe(true);
    // Each outcome is kept once sent; a third claim would make three of eight records bob's.
    await expect(keys.run('bob', 'k3', 'fp', send)).rejects.toThrow(/the most one user may/);
    expect(sent()).toBe(2);
    expect((await keys.run('alice', 'k1', 'fp', send)).ok).toBe(true);
    // What bob's keys answered is still there.
    expect((await keys.run('bob', 'k1', 'fp', send)).ok).toBe(true);
    expect(sent()).toBe(3);
  });
});

/** A send that answers 200 and counts how often it was called (what reached the upstream). */
function countingSend() {
  let count = 0;
  const send = async () => {
    count += 1;
    return {
      outcome: { ok: true, kind: 'response', status: 200, body: {} } as never,
      reachedUpstream: true,
    };
  };
  return { send, sent: () => count };
}
