import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  keysWithoutExpiry,
  perRequestState,
  recordIncoming,
  watchSessions,
} from './replica-probe-support.js';
import { postToSession, storeAliceToken } from './replica-scenarios.js';
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
import { BOB_ACCESS_TOKEN } from './support.js';

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

/** Bob's POST of `messages` to a replica, under `sessionId` (any he names). */
const bobPosts = (replica: { url: string }, sessionId: string, messages: unknown) =>
  postToSession(replica.url, BOB_ACCESS_TOKEN, sessionId, messages);

/** Cancellations of ids 0 to `count - 1`, each giving a reason of `reasonLength` characters. */
const cancellations = (count: number, reasonLength = 0) =>
  Array.from({ length: count }, (_, requestId) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, ...(reasonLength > 0 ? { reason: 'x'.repeat(reasonLength) } : {}) },
  }));

/**
 * Alice's slow call running on A, its request at the upstream; B holds a copy of the session too
 * where `heldByB` (the client's requests went round). `route` sends the client's next requests.
 */
async function slowCallOnA(heldByB = true) {
  const [a, b] = await startReplicas();
  await storeAliceToken(suite(), 'items.read');
  slowUpstream();
  let target = origin(a);
  balancer.pick = () => target;
  const route = (replica: typeof a) => {
    target = origin(replica);
  };
  const { client, transport } = await connect(`${balancer.url}/mcp`);
  const incoming = recordIncoming(transport);
  if (heldByB) {
    route(b);
    await client.ping();
    route(a);
  }
  const cancel = new AbortController();
  const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
  await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 10_000, interval: 20 });
  return { a, b, client, incoming, route, cancel, call };
}

describe('replica probe: a cancellation landing on another replica', () => {
  it('stops the call on A, answers nothing after, and leaves no per-request state anywhere', async () => {
    const { b, client, incoming, route, cancel, call } = await slowCallOnA();
    route(b);
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
    const { b, route, cancel, call } = await slowCallOnA();
    await redis.stop({ save: true });
    await wait(300);
    await redis.start();
    route(b);
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
    const { b, incoming, route, cancel, call } = await slowCallOnA();
    await redis.stop({ save: true });
    try {
      // B holds a copy of the session, takes the cancellation (202) and cannot relay it yet.
      route(b);
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
  it('stops the call on A once Redis is back when its cancellation landed on B, holding no copy, while Redis was away', async () => {
    // B holds no copy: it cannot read the session's record to check its user, so it keeps the
    // cancellation and relays it once Redis answers, the user checked then. It refused it 503
    // before, and A's call ran on to the vendor.
    const { b, route, cancel, call } = await slowCallOnA(false);
    await redis.stop({ save: true });
    try {
      route(b);
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
    slowUpstream();
    let target = origin(a);
    balancer.pick = () => target;
    const { client, transport } = await connect(`${balancer.url}/mcp`);
    void getItem(client, 'slow-kept').catch(() => {});
    const cancel = new AbortController();
    const cancelled = getItem(client, 'slow-cancelled', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(2), { timeout: 10_000, interval: 20 });
    await redis.stop({ save: true });
    try {
      // Bob knows Alice's session id and cancels every id her calls could have: B cannot tell whose it is yet.
      expect((await bobPosts(b, transport.sessionId!, cancellations(20))).status).toBe(202);
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
    // Still at the upstream once Alice's own, relayed after Bob's, has stopped the other: not cancelled.
    await wait(500);
    expect(byPath('/items/slow-kept').aborted).toBeFalsy();
  }, 40_000);

  it("keeps and relays a user's cancellation while another fills his share of what B keeps with made-up sessions", async () => {
    const { b, route, cancel, call } = await slowCallOnA(false);
    await redis.stop({ save: true });
    const bobFloods = async (posts: number) => {
      const statuses: number[] = [];
      // About 8 KB each, for sessions that do not exist: answered 202 while B can keep them.
      for (let i = 0; i < posts; i += 1)
        statuses.push((await bobPosts(b, randomUUID(), cancellations(10, 800))).status);
      return statuses;
    };
    try {
      // Bob's share is a sixteenth of B's 1 MiB: past it he is told to try again (503), as when nothing can be kept.
      const first = await bobFloods(16);
      expect(first.slice(0, 4)).toEqual([202, 202, 202, 202]);
      expect(first.slice(-4)).toEqual([503, 503, 503, 503]);
      route(b);
      cancel.abort();
      await call;
      await vi.waitFor(
        () =>
          expect(balancer.forwarded.at(-1)).toMatchObject({ target: origin(b), method: 'POST', status: 202 }),
        { timeout: 5000, interval: 20 },
      );
      // More than B keeps in all: Alice's, kept first, used to be pushed out by them.
      expect(new Set(await bobFloods(140))).toEqual(new Set([503]));
    } finally {
      await redis.start();
    }
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), { timeout: 5000, interval: 50 });
  }, 60_000);
});
