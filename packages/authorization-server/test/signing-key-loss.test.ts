import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStateStore } from '../src/index.js';
import { type Running, startAuthorizationServer } from './support.js';

const running: Running[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function replicaOn(store: MemoryStateStore): Promise<Running> {
  const as = await startAuthorizationServer({ store });
  running.push(as);
  return as;
}

async function kidsOf(as: Running): Promise<string[]> {
  const set = (await (await fetch(`${as.issuer}/auth/jwks`)).json()) as { keys: { kid: string }[] };
  return set.keys.map((k) => k.kid);
}

// Replicas sign with the key their store holds, each loading it once. Where the store loses it
// (Redis restarted without persistence, or a failover before the key was copied), a replica
// starting next makes another: without a second look at the store, the replicas running sign
// and verify with the old key and the new one with its own, each refusing the others' tokens,
// until every replica restarts.
describe('the signing key, lost from a shared store', () => {
  it('is taken up again by the replicas running: one key in the fleet within a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStateStore();
    const a = await replicaOn(store);
    const [before] = await kidsOf(a);
    await store.delete('signing-key');

    // The key put back by the replica running, where it is the first to look again...
    vi.setSystemTime(Date.now() + 61_000);
    expect(await kidsOf(a)).toEqual([before]);
    const b = await replicaOn(store);
    expect(await kidsOf(b)).toEqual([before]);

    // ...and another replica's key taken, where that one wrote first.
    await store.delete('signing-key');
    const c = await replicaOn(store);
    const [fresh] = await kidsOf(c);
    expect(fresh).not.toBe(before);
    vi.setSystemTime(Date.now() + 61_000);
    expect(await kidsOf(a)).toEqual([fresh]);
    expect(await kidsOf(b)).toEqual([fresh]);
  });
});
