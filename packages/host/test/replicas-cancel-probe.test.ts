import { describe, expect, it, vi } from 'vitest';
import {
  keysWithoutExpiry,
  perRequestState,
  recordIncoming,
  watchSessions,
} from './replica-probe-support.js';
import { storeAliceToken } from './replica-scenarios.js';
import {
  admin,
  balancer,
  connect,
  getItem,
  origin,
  startReplicas,
  suite,
  upstream,
  useReplicaSuite,
} from './replicas-setup.js';
import { redis } from './standalone-redis-setup.js';

useReplicaSuite();
watchSessions();

/** Longer than any wait below: a call the cancellation missed is still at the upstream when checked. */
const SLOW_MS = 20_000;
const slowUpstream = () =>
  upstream.respond((r) => ({
    body: { path: r.path },
    delayMs: r.path.startsWith('/items/slow') ? SLOW_MS : 0,
  }));

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replica probe: a cancellation landing on another replica', () => {
  it('stops the call on A, answers nothing after, and leaves no per-request state anywhere', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    slowUpstream();
    let target = origin(a);
    balancer.pick = () => target;
    const { client, transport } = await connect(`${balancer.url}/mcp`);
    const incoming = recordIncoming(transport);
    // B holds a copy of the session too (the client's requests go round).
    target = origin(b);
    await client.ping();
    target = origin(a);
    const cancel = new AbortController();
    const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 10_000, interval: 20 });
    target = origin(b);
    cancel.abort();
    await call;
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), { timeout: 5000, interval: 20 });
    await vi.waitFor(() => expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 }), {
      timeout: 5000,
      interval: 50,
    });
    // Its handler is over and saw the abort: nothing more reaches the upstream, nor the client.
    await wait(1000);
    expect(upstream.requests).toHaveLength(1);
    const answers = incoming.filter((m) => 'id' in m && m.id === 2);
    expect(answers.every((m) => 'error' in m)).toBe(true);
    expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 });
    expect(await keysWithoutExpiry(admin)).toEqual([]);
    expect((await client.ping()) !== undefined).toBe(true);
  }, 40_000);

  it('stops the call on A when the cancellation lands on B just after Redis came back', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    slowUpstream();
    let target = origin(a);
    balancer.pick = () => target;
    const { client } = await connect(`${balancer.url}/mcp`);
    target = origin(b);
    await client.ping();
    target = origin(a);
    const cancel = new AbortController();
    const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await redis.stop({ save: true });
    await wait(300);
    await redis.start();
    target = origin(b);
    // B must reach Redis again before it relays; the client's notification is sent once.
    await vi.waitFor(async () => expect((await fetch(`${origin(b)}/readyz`)).status).toBe(200), {
      timeout: 10_000,
      interval: 50,
    });
    cancel.abort();
    await call;
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), { timeout: 5000, interval: 20 });
    await vi.waitFor(() => expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 }), {
      timeout: 5000,
      interval: 50,
    });
    expect(await keysWithoutExpiry(admin)).toEqual([]);
  }, 40_000);

  it('stops the call on A once Redis is back when its cancellation landed on B while Redis was away', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    slowUpstream();
    let target = origin(a);
    balancer.pick = () => target;
    const { client, transport } = await connect(`${balancer.url}/mcp`);
    const incoming = recordIncoming(transport);
    target = origin(b);
    await client.ping();
    target = origin(a);
    const cancel = new AbortController();
    const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await redis.stop({ save: true });
    try {
      // B holds a copy of the session, takes the cancellation (202) and cannot relay it yet.
      target = origin(b);
      cancel.abort();
      await call;
      await vi.waitFor(
        () =>
          expect(balancer.forwarded.at(-1)).toMatchObject({ target: origin(b), method: 'POST', status: 202 }),
        { timeout: 5000, interval: 20 },
      );
    } finally {
      await redis.start();
    }
    // Relayed once Redis answers again: A's call stops before the upstream answers it.
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), { timeout: 5000, interval: 20 });
    await vi.waitFor(() => expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 }), {
      timeout: 5000,
      interval: 50,
    });
    await wait(1000);
    expect(incoming.filter((m) => 'result' in m && m.id === 2)).toEqual([]);
    expect(upstream.requests).toHaveLength(1);
    expect(await keysWithoutExpiry(admin)).toEqual([]);
  }, 40_000);

  it("withdraws A's question to the person when the call is cancelled on B, sending nothing upstream", async () => {
    const [a, b] = await startReplicas({ tools: { confirmWrites: true } });
    await storeAliceToken(suite(), 'items.write');
    let target = origin(a);
    balancer.pick = () => target;
    const { client, transport } = await connect(`${balancer.url}/mcp`, undefined, {
      elicitation: { form: {} },
    });
    const incoming = recordIncoming(transport);
    let asked = 0;
    // The person never answers.
    client.setRequestHandler('elicitation/create', () => {
      asked += 1;
      return new Promise<never>(() => {});
    });
    const cancel = new AbortController();
    const call = client
      .callTool({ name: 'EchoApi_DeleteItem', arguments: { item_id: 'd1' } }, { signal: cancel.signal })
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(asked).toBe(1), { timeout: 10_000, interval: 20 });
    target = origin(b);
    cancel.abort();
    await call;
    // A withdraws its question (its own cancellation of the elicitation), and holds nothing of either.
    await vi.waitFor(
      () =>
        expect(
          incoming.some(
            (m) =>
              'method' in m && m.method === 'notifications/cancelled' && !('id' in m && m.id !== undefined),
          ),
        ).toBe(true),
      { timeout: 5000, interval: 20 },
    );
    await vi.waitFor(() => expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 }), {
      timeout: 5000,
      interval: 50,
    });
    expect(upstream.requests).toEqual([]);
    expect(await keysWithoutExpiry(admin)).toEqual([]);
  }, 40_000);
});
