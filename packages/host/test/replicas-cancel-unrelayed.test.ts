import { describe, expect, it, vi } from 'vitest';
import { storeAliceToken } from './replica-scenarios.js';
import {
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
import { BOB_ACCESS_TOKEN } from './support.js';

useReplicaSuite();

describe('a cancellation landing, while Redis is away, on a replica holding no copy of the session', () => {
  // B cannot read the session's record to check its user, so it keeps the cancellation and relays
  // it once Redis answers, the user checked then. It refused it 503 before: the client sends a
  // cancellation once, so A's call ran on to the vendor, its answer for a client that gave it up.
  it('stops the call on A once Redis is back when its cancellation landed on B, holding no copy, while Redis was away', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    upstream.respond((r) => ({ body: { path: r.path }, delayMs: r.path === '/items/slow' ? 8000 : 0 }));
    let target = origin(a);
    balancer.pick = () => target;
    const { client } = await connect(`${balancer.url}/mcp`);
    const cancel = new AbortController();
    const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await redis.stop({ save: true });
    try {
      target = origin(b);
      cancel.abort();
      await call;
      await vi.waitFor(
        () =>
          expect(balancer.forwarded.at(-1)).toMatchObject({ target: origin(b), method: 'POST', status: 202 }),
        {
          timeout: 5000,
          interval: 20,
        },
      );
    } finally {
      await redis.start();
    }
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), { timeout: 5000, interval: 50 });
  }, 40_000);
  it("does not relay another user's cancellations of the session once Redis is back", async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    upstream.respond((r) => ({
      body: { path: r.path },
      delayMs: r.path.startsWith('/items/slow') ? 8000 : 0,
    }));
    let target = origin(a);
    balancer.pick = () => target;
    const { client, transport } = await connect(`${balancer.url}/mcp`);
    const kept = getItem(client, 'slow-kept').catch((e: unknown) => e);
    const cancel = new AbortController();
    const cancelled = getItem(client, 'slow-cancelled', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(2), { timeout: 10_000, interval: 20 });
    await redis.stop({ save: true });
    try {
      // Bob knows Alice's session id and cancels every id her calls could have: B cannot tell whose it is yet.
      const cancellations = Array.from({ length: 20 }, (_, requestId) => ({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId },
      }));
      const bob = await fetch(`${b.url}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${BOB_ACCESS_TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
        },
        body: JSON.stringify(cancellations),
      });
      expect(bob.status).toBe(202);
      // Then Alice's own, kept after Bob's: once it stops her call, Bob's were read first.
      target = origin(b);
      cancel.abort();
      await cancelled;
    } finally {
      await redis.start();
    }
    const byPath = (path: string) => upstream.requests.find((r) => r.path === path)!;
    await vi.waitFor(() => expect(byPath('/items/slow-cancelled').aborted).toBe(true), {
      timeout: 5000,
      interval: 50,
    });
    expect(byPath('/items/slow-kept').aborted).toBeFalsy();
    expect(await kept).toMatchObject({ content: [{ text: expect.stringContaining('/items/slow-kept') }] });
  }, 40_000);
});
