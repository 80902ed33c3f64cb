import { describe, expect, it, vi } from 'vitest';
import { keysWithoutExpiry, recordIncoming } from './replica-probe-support.js';
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
import { ALICE_ACCESS_TOKEN, BOB_ACCESS_TOKEN } from './support.js';

useReplicaSuite();

/**
 * Each item whose id holds `flaky` answers 503 once: its call is retried, and the retry reaches
 * the client as a warning (a log notification of the call's request), at a level of warning or below.
 */
function flakyUpstream(): void {
  const failed = new Set<string>();
  upstream.respond((r) => {
    if (r.path.includes('flaky') && !failed.has(r.path)) {
      failed.add(r.path);
      return { status: 503, body: { message: 'busy' } };
    }
    return { body: { path: r.path } };
  });
}

/**
 * Alice's session opened on A, the client's requests then sent where `route` says. Writes are
 * confirmed and the client can be asked: a call's log notifications then go on its own POST's
 * event stream, from whichever replica runs it.
 */
async function aliceOnA() {
  const [a, b] = await startReplicas({ tools: { confirmWrites: true } });
  await storeAliceToken(suite(), 'items.read');
  flakyUpstream();
  let target = origin(a);
  balancer.pick = () => target;
  const { client, transport } = await connect(`${balancer.url}/mcp`, undefined, {
    elicitation: { form: {} },
  });
  const incoming = recordIncoming(transport);
  const route = (replica: typeof a) => {
    target = origin(replica);
  };
  let calls = 0;
  /** The levels of the log notifications a call on `replica` sent the client, each call of a new flaky item. */
  const logsOfCallOn = async (replica: typeof a) => {
    calls += 1;
    const item = `flaky-${calls}`;
    route(replica);
    const from = incoming.length;
    const result = await getItem(client, item);
    expect(result.isError).toBeFalsy();
    const logs = incoming.slice(from) as { method?: string; params?: { level?: string } }[];
    return logs.filter((m) => m.method === 'notifications/message').map((m) => m.params?.level);
  };
  return { a, b, client, transport, route, logsOfCallOn };
}

describe('replicas: the logging level a client sets on its session', () => {
  it("holds on B's copy of the session when the client set it on A", async () => {
    const { a, b, client, route, logsOfCallOn } = await aliceOnA();
    // B holds a copy, and sends the retry's warning while no level is set.
    expect(await logsOfCallOn(b)).toEqual(['warning']);
    route(a);
    await client.setLoggingLevel('error');
    // Relayed to B as the client's answers are: B's calls send no warning once it has it.
    await vi.waitFor(async () => expect(await logsOfCallOn(b)).toEqual([]), {
      timeout: 20_000,
      interval: 100,
    });
    // And a level that lets warnings through again, set on A, reaches B as well.
    route(a);
    await client.setLoggingLevel('warning');
    await vi.waitFor(async () => expect(await logsOfCallOn(b)).toEqual(['warning']), {
      timeout: 20_000,
      interval: 100,
    });
  }, 60_000);

  it('holds on a copy B rebuilds from the shared store after the client set it on A', async () => {
    const { a, b, client, transport, route, logsOfCallOn } = await aliceOnA();
    route(a);
    await client.setLoggingLevel('error');
    // The session's record carries it, and keeps its expiry.
    const record = JSON.parse((await admin.get(`toolhost:session:${transport.sessionId}`))!);
    expect(record.settings).toMatchObject([{ method: 'logging/setLevel', params: { level: 'error' } }]);
    expect(await keysWithoutExpiry(admin)).toEqual([]);
    // B never held the session: it rebuilds it at this call, its level read with the record.
    expect(await logsOfCallOn(b)).toEqual([]);
    // Where the level lets the warning through, B's retry sends it: the call above could have.
    route(a);
    await client.setLoggingLevel('debug');
    await vi.waitFor(async () => expect(await logsOfCallOn(b)).toEqual(['warning']), {
      timeout: 20_000,
      interval: 100,
    });
  }, 60_000);

  it('shares no level the transport refuses for its headers, and still one it answers', async () => {
    const { a, b, transport, logsOfCallOn } = await aliceOnA();
    const sessionId = transport.sessionId!;
    const settings = async () => JSON.parse((await admin.get(`toolhost:session:${sessionId}`))!).settings;
    // B holds a copy of the session, no level set.
    expect(await logsOfCallOn(b)).toEqual(['warning']);
    const refusals = [
      [{ accept: 'application/json' }, 406],
      [{ accept: undefined }, 406],
      [{ 'content-type': 'text/plain' }, 415],
      [{ 'mcp-protocol-version': '1999-01-01' }, 400],
      [{ 'mcp-protocol-version': 'not-a-version' }, 400],
    ] as const;
    for (const [i, [headers, status]] of refusals.entries()) {
      const single = setLevel(10 * i, 'error');
      const batch = [setLevel(10 * i + 1, 'error'), { jsonrpc: '2.0', id: 10 * i + 2, method: 'ping' }];
      for (const body of [single, batch]) {
        const res = await postToSession(a.url, ALICE_ACCESS_TOKEN, sessionId, body, headers);
        expect([JSON.stringify(headers), res.status]).toEqual([JSON.stringify(headers), status]);
        expect(((await res.json()) as { error?: unknown }).error).toBeDefined();
      }
    }
    // Well sent, but not a level set: a member of no request (400), a level MCP does not define
    // (the server's error), no id (a notification, which the server ignores).
    const { jsonrpc, method } = setLevel(0, 'error');
    const notSet = [
      { ...setLevel(100, 'error'), extra: true },
      setLevel(101, 'loud'),
      { jsonrpc, method, params: { level: 'error' } },
    ];
    const answers = await Promise.all(
      notSet.map((m) => postToSession(a.url, ALICE_ACCESS_TOKEN, sessionId, m)),
    );
    expect(answers.map((r) => r.status)).toEqual([400, 200, 202]);
    expect(((await answers[1]!.json()) as { error?: unknown }).error).toBeDefined();
    // Neither kept for a rebuild nor relayed (the relay goes before the answer: B would have it by now).
    expect(await settings()).toBeUndefined();
    expect(await logsOfCallOn(b)).toEqual(['warning']);
    // The same request, answered, is shared as before: kept, and B's calls follow it.
    const res = await postToSession(a.url, ALICE_ACCESS_TOKEN, sessionId, setLevel(200, 'error'));
    expect([res.status, await res.json()]).toEqual([200, { jsonrpc: '2.0', id: 200, result: {} }]);
    expect(await settings()).toMatchObject([{ method: 'logging/setLevel', params: { level: 'error' } }]);
    await vi.waitFor(async () => expect(await logsOfCallOn(b)).toEqual([]), {
      timeout: 20_000,
      interval: 100,
    });
  }, 60_000);
});

/** A client's `logging/setLevel` request, as sent by hand. */
const setLevel = (id: number, level: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'logging/setLevel',
  params: { level },
});

/** A POST of `message` under `sessionId` to a replica, with `token`: its status. */
const post = async (replica: { url: string }, token: string, sessionId: string, message: unknown) =>
  (await postToSession(replica.url, token, sessionId, message)).status;

describe('replicas: what reaches a session being rebuilt, or its record', () => {
  it("refuses another user's request that lands while the owner's rebuilds the session", async () => {
    const [a, b] = await startReplicas();
    balancer.pick = () => origin(a);
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
    // Each time a session B has never held: Alice's request rebuilds it, Bob's comes meanwhile.
    for (let i = 0; i < 8; i += 1) {
      const { transport } = await connect(`${balancer.url}/mcp`);
      const sessionId = transport.sessionId!;
      const [alice, bob] = await Promise.all([
        post(b, ALICE_ACCESS_TOKEN, sessionId, list),
        post(b, BOB_ACCESS_TOKEN, sessionId, list),
      ]);
      expect([alice, bob]).toEqual([200, 403]);
    }
  }, 60_000);

  it('keeps the level a client sets in a batch, as the session takes it', async () => {
    const [a] = await startReplicas();
    balancer.pick = () => origin(a);
    const { transport } = await connect(`${balancer.url}/mcp`);
    const sessionId = transport.sessionId!;
    expect(
      await post(a, ALICE_ACCESS_TOKEN, sessionId, [setLevel(8, 'error'), setLevel(9, 'critical')]),
    ).toBe(200);
    const record = JSON.parse((await admin.get(`toolhost:session:${sessionId}`))!);
    expect(record.settings).toMatchObject([{ method: 'logging/setLevel', params: { level: 'critical' } }]);
  }, 60_000);
});
