import { describe, expect, it } from 'vitest';
import { ClientResolver } from './clients.js';
import { MemoryStateStore } from './state-store.js';

const DAY = 86_400_000;

/** A resolver over a store whose clock the test moves. */
/** The memory store, counting its writes. */
class Counted extends MemoryStateStore {
  writes = 0;
  override set(...args: Parameters<MemoryStateStore['set']>): Promise<void> {
    this.writes += 1;
    return super.set(...args);
  }
}

function resolverAt(clock: { now: number }) {
  const store = new Counted(() => clock.now);
  const clients = new ClientResolver({
    store,
    metadataDocuments: false,
    fetchLimits: { allowLoopback: false, timeoutMs: 1000, maxBytes: 1024 },
    defaultCacheSeconds: 300,
    registeredClientSeconds: 90 * 86_400,
    now: () => clock.now,
  });
  const client = {
    clientId: 'c1',
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod: 'none',
    source: 'registration',
  };
  return { store, clients, register: () => store.set('client:c1', JSON.stringify(client), 90 * 86_400) };
}

/** The client as resolved, then issued tokens, as the token endpoint does. */
async function use(clients: ClientResolver) {
  await clients.issuedTokens(await clients.resolve('c1'));
}

describe('registered clients', () => {
  it('are kept 90 days after their last use, not after their registration', async () => {
    const clock = { now: 0 };
    const { clients, register } = resolverAt(clock);
    await register();
    for (let day = 60; day <= 360; day += 60) {
      clock.now = day * DAY;
      await use(clients);
    }
    await expect(clients.resolve('c1')).resolves.toMatchObject({ clientId: 'c1' });
  });

  it('are not kept on by being looked up, which anyone can have done', async () => {
    const clock = { now: 0 };
    const { clients, register } = resolverAt(clock);
    await register();
    for (let day = 60; day < 90; day += 10) {
      clock.now = day * DAY;
      await clients.resolve('c1');
    }
    clock.now = 90 * DAY + 1;
    await expect(clients.resolve('c1')).rejects.toMatchObject({ code: 'invalid_client' });
  });

  it('expire 90 days after their last use', async () => {
    const clock = { now: 0 };
    const { clients, register } = resolverAt(clock);
    await register();
    clock.now = 30 * DAY;
    await use(clients);
    clock.now = (30 + 90) * DAY + 1;
    await expect(clients.resolve('c1')).rejects.toMatchObject({ code: 'invalid_client' });
  });

  it('have their expiry moved on once a day, however often they are used', async () => {
    const clock = { now: 0 };
    const { store, clients, register } = resolverAt(clock);
    await register();
    store.writes = 0;
    for (let i = 0; i < 50; i += 1) {
      clock.now += 60_000;
      await use(clients);
    }
    expect(store.writes).toBe(1);
    clock.now += DAY;
    await use(clients);
    expect(store.writes).toBe(2);
    // The client's record carries no bookkeeping out.
    expect(await clients.resolve('c1')).not.toHaveProperty('seenAt');
  });
});
