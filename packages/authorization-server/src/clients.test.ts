import { describe, expect, it } from 'vitest';
import { ClientResolver } from './clients.js';
import { MemoryStateStore } from './state-store.js';

const DAY = 86_400_000;

/** A resolver over a store whose clock the test moves. */
function resolverAt(clock: { now: number }) {
  const store = new MemoryStateStore(() => clock.now);
  const clients = new ClientResolver({
    store,
    metadataDocuments: false,
    fetchLimits: { allowLoopback: false, timeoutMs: 1000, maxBytes: 1024 },
    defaultCacheSeconds: 300,
    registeredClientSeconds: 90 * 86_400,
  });
  const client = {
    clientId: 'c1',
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod: 'none',
  };
  return { clients, register: () => store.set('client:c1', JSON.stringify(client), 90 * 86_400) };
}

describe('registered clients', () => {
  it('are kept 90 days after their last use, not after their registration', async () => {
    const clock = { now: 0 };
    const { clients, register } = resolverAt(clock);
    await register();
    for (let day = 60; day <= 360; day += 60) {
      clock.now = day * DAY;
      await expect(clients.resolve('c1')).resolves.toMatchObject({ clientId: 'c1' });
    }
  });

  it('expire 90 days after their last use', async () => {
    const clock = { now: 0 };
    const { clients, register } = resolverAt(clock);
    await register();
    clock.now = 30 * DAY;
    await clients.resolve('c1');
    clock.now = (30 + 90) * DAY + 1;
    await expect(clients.resolve('c1')).rejects.toMatchObject({ code: 'invalid_client' });
  });
});
