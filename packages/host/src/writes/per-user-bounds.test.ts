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
    let sent = 0;
    const send = async () => {
      sent += 1;
      return {
        outcome: { ok: true, kind: 'response', status: 200, body: {} } as never,
        reachedUpstream: true,
      };
    };
    await keys.run('alice', 'k1', 'fp', send);
    await keys.run('alice', 'k2', 'fp', send);
    const refused = await keys.run('alice', 'k3', 'fp', send);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'store_unavailable', parameter: 'idempotency_key', retryable: true },
    });
    expect(sent).toBe(2);
    // A key already holding its outcome still answers it.
    expect((await keys.run('alice', 'k1', 'fp', send)).ok).toBe(true);
    expect((await keys.run('bob', 'k1', 'fp', send)).ok).toBe(true);
    expect(sent).toBe(3);
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
