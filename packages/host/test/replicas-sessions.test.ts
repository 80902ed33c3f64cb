import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TokenCipher } from '@toolhost/credentials';
import { RedisTokenStore } from '@toolhost/redis-store';
import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { SHARED_STORE } from '../src/assemble-host.js';
import { containerOf } from '../src/host.js';
import { resolveService } from '../src/services.js';
import { storeAuthorized } from './fake-oauth-server.js';
import {
  confirmationAcrossReplicas,
  postToSession,
  sessionAcrossReplicas,
  storeAliceToken,
} from './replica-scenarios.js';
import {
  admin,
  balancer,
  clients,
  connect,
  getItem,
  type ModernAnswer,
  modernCall,
  oauth,
  origin,
  startReplicas,
  startReplicasToKillA,
  suite,
  TOKEN_KEY,
  upstream,
  useReplicaSuite,
} from './replicas-setup.js';
import { redis } from './standalone-redis-setup.js';
import { ALICE_ACCESS_TOKEN as ALICE, BOB_ACCESS_TOKEN as BOB, postInitialize } from './support.js';
import { AGREE } from './write-support.js';

useReplicaSuite();

// Any replica serves any session behind a balancer: confirmations asked on one and answered on
// another, sessions alternating, replicas killed mid-call. Authorizations are in replicas.test.ts.

describe('replicas: any replica serves any session', () => {
  it("hands the person's confirmation to the replica that asked, wherever it lands", async () => {
    await confirmationAcrossReplicas(suite());
  }, 60_000);

  it('takes on replica B the answer to a 2026-07-28 confirmation replica A asked', async () => {
    const [a, b] = await startReplicas({ tools: { confirmWrites: true } });
    await storeAliceToken(suite(), 'items.write');
    let answered = false;
    balancer.pick = () => (answered ? origin(b) : origin(a));
    const client = new Client(
      { name: 'modern', version: '0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => {
      answered = true;
      return { action: 'accept', content: { send: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'EchoApi_DeleteItem', arguments: { item_id: 'm9' } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const calls = balancer.forwarded.filter((f) => f.method === 'POST').slice(-2);
    expect(calls.map((f) => f.target)).toEqual([origin(a), origin(b)]);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({ method: 'DELETE', path: '/items/m9' });
    expect(await admin.keys('toolhost:session:*')).toEqual([]);
  }, 60_000);

  it('answers a 2026-07-28 confirmation retried on B after A was killed mid-send: its outcome or outcome unknown, never a second request', async () => {
    const [a, b] = await startReplicasToKillA({ tools: { confirmWrites: true, idempotencyClaimSeconds: 2 } });
    await storeAliceToken(suite(), 'items.write');
    let served = 0;
    let hold = false;
    // A held request stays at the upstream: its replica has sent it and waits for the answer.
    upstream.respond(() =>
      hold ? new Promise<never>(() => {}) : { status: 200, body: { deleted: true, n: ++served } },
    );
    const target = { to: origin(a) };
    balancer.pick = () => target.to;
    const deleteItem = (id: string, retry?: { requestState: string }) =>
      modernCall(
        `${balancer.url}/mcp`,
        'EchoApi_DeleteItem',
        { item_id: id },
        retry && { ...retry, inputResponses: AGREE },
      );

    // Answered on A and retried on B (the answer lost on its way): B answers A's outcome.
    const sentState = (await deleteItem('kept')).result!.requestState!;
    const sent = await deleteItem('kept', { requestState: sentState });
    expect(sent.result?.isError, JSON.stringify(sent)).toBeFalsy();
    target.to = origin(b);
    const retried = await deleteItem('kept', { requestState: sentState });
    expect(retried.result).toEqual(sent.result);
    expect(upstream.requests).toHaveLength(1);

    // Answered on A, which is killed once its request is at the upstream, before it answers.
    target.to = origin(a);
    const state = (await deleteItem('lost')).result!.requestState!;
    hold = true;
    const lost = deleteItem('lost', { requestState: state }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(2), { timeout: 20_000, interval: 20 });
    a.child.kill('SIGKILL');
    await a.exited;
    // The client never got its answer (the balancer's 502, or a stream cut short).
    expect(await lost).toBeInstanceOf(Error);
    hold = false;
    target.to = origin(b);
    const errorOf = (r: ModernAnswer) =>
      (r.result?.structuredContent as { error?: { code: string; message: string; retryable: boolean } })
        ?.error;
    // The killed replica's claim outlives it by up to tools.idempotencyClaimSeconds: meanwhile
    // the retry is told the call is still running, and sends nothing either.
    const deadline = Date.now() + 30_000;
    let answer = await deleteItem('lost', { requestState: state });
    while (errorOf(answer)?.code === 'confirmation_in_progress' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      answer = await deleteItem('lost', { requestState: state });
    }
    expect(answer.error, JSON.stringify(answer)).toBeUndefined();
    expect(answer.result?.isError).toBe(true);
    expect(errorOf(answer)).toMatchObject({ code: 'confirmation_outcome_unknown', retryable: false });
    expect(errorOf(answer)?.message).toMatch(/may have reached the upstream/);
    expect(errorOf(answer)?.message).toMatch(/Check upstream whether the change was made/);
    // And again later: the confirmation never sends.
    expect(errorOf(await deleteItem('lost', { requestState: state }))?.code).toBe(
      'confirmation_outcome_unknown',
    );
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /items/kept',
      'DELETE /items/lost',
    ]);
  }, 90_000);

  it('serves one session whose requests alternate between two replicas, for its user only', async () => {
    await sessionAcrossReplicas(suite());
  }, 60_000);

  it('cancels a call on the replica running it when the cancellation lands on another', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    let target = origin(a);
    balancer.pick = () => target;
    upstream.respond((r) => ({ body: { path: r.path }, delayMs: r.path === '/items/slow' ? 4000 : 0 }));
    const { client } = await connect(`${balancer.url}/mcp`);
    const cancel = new AbortController();
    const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 5000, interval: 20 });
    // The client's notifications/cancelled goes to B, which holds no such call.
    target = origin(b);
    cancel.abort();
    await call;
    const sent = performance.now();
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), { timeout: 3000, interval: 20 });
    expect(performance.now() - sent).toBeLessThan(2000);
    const cancelPost = balancer.forwarded.at(-1)!;
    expect([cancelPost.target, cancelPost.method, cancelPost.status]).toEqual([origin(b), 'POST', 202]);
  }, 60_000);

  it('cancels a call on the replica running it while Redis is away, where the cancellation lands', async () => {
    const [a] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    balancer.pick = () => origin(a);
    upstream.respond((r) => ({ body: { path: r.path }, delayMs: r.path === '/items/slow' ? 4000 : 0 }));
    const { client } = await connect(`${balancer.url}/mcp`);
    const cancel = new AbortController();
    const call = getItem(client, 'slow', { signal: cancel.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 5000, interval: 20 });
    await redis.stop({ save: true });
    try {
      // No relay without Redis: the replica that runs the call takes the cancellation itself.
      cancel.abort();
      await call;
      await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), {
        timeout: 3000,
        interval: 20,
      });
      const cancelPost = balancer.forwarded.at(-1)!;
      expect([cancelPost.method, cancelPost.status]).toEqual(['POST', 202]);
    } finally {
      await redis.start();
    }
  }, 60_000);

  it('holds no copy of a session its client ended on another replica while this one rebuilt it', async () => {
    const [a, b] = await startReplicas();
    balancer.pick = () => origin(a);
    const { transport } = await connect(`${balancer.url}/mcp`);
    const session = transport.sessionId!;
    // B reads the session's record; before it holds its copy, the client ends the session on A,
    // whose broadcast of the end reaches B with nothing to close there yet.
    const redis = resolveService(containerOf(b.host), SHARED_STORE)!.redis as Redis;
    const get = redis.get.bind(redis);
    const listener = admin.duplicate();
    await listener.subscribe('toolhost:session:closed');
    const heard = new Promise((resolve) => listener.once('message', resolve));
    let endedMeanwhile = false;
    redis.get = (async (key: string) => {
      const value = await get(key);
      if (key === `toolhost:session:${session}` && !endedMeanwhile) {
        endedMeanwhile = true;
        await transport.terminateSession();
        await heard;
        // B's own subscriber has the same message in hand by now.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return value;
    }) as typeof redis.get;
    try {
      const ping = () => postToSession(b.url, ALICE, session, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect((await ping()).status).toBe(404);
      expect(endedMeanwhile).toBe(true);
      expect((await ping()).status).toBe(404);
      expect(b.logs()).not.toContain('session resumed from the shared store');
    } finally {
      redis.get = get;
      await listener.quit();
    }
  }, 60_000);

  it('refuses to keep an initialize request larger than a handshake in the shared store', async () => {
    const [a] = await startReplicas();
    const before = await admin.keys('toolhost:session:*');
    const initialize = (padding: number) =>
      postInitialize(a.url, {
        token: ALICE,
        params: { capabilities: { experimental: { padding: { text: 'x'.repeat(padding) } } } },
      });
    const refused = await initialize(70_000);
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/65536 bytes/);
    expect(await admin.keys('toolhost:session:*')).toEqual(before);
    const opened = await initialize(1_000);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('mcp-session-id')).toBeTruthy();
  }, 60_000);

  it('ends a session closed at the per-user cap everywhere, so that the store holds no more than the caps', async () => {
    const [a, b] = await startReplicas({ http: { publicUrl: balancer.url, maxSessionsPerUser: 2 } });
    const sessionKeys = async () =>
      (await admin.keys('toolhost:session:*')).filter((k) => k.split(':').length === 3);
    const before = await sessionKeys();
    const opened: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await postInitialize(a.url, { token: ALICE });
      await res.text();
      opened.push(res.headers.get('mcp-session-id')!);
    }
    const kept = (await sessionKeys()).filter((k) => !before.includes(k));
    expect(kept.sort()).toEqual(
      opened
        .slice(-2)
        .map((id) => `toolhost:session:${id}`)
        .sort(),
    );
    // The first, closed at the cap on A, is not brought back on B from a record.
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    expect((await postToSession(b.url, ALICE, opened[0]!, ping)).status).toBe(404);
    expect((await postToSession(b.url, ALICE, opened[5]!, ping)).status).toBe(200);
  }, 60_000);

  it("closes no one's session at the cap for an initialize the store failed, and leaves no record of it", async () => {
    // A frozen Redis is given store.commandTimeoutMs per command: 2 s, not the default 5 s.
    const [a, b] = await startReplicas({
      http: { publicUrl: balancer.url, maxSessions: 3 },
      store: { commandTimeoutMs: 2000 },
    });
    const sessionKeys = async () =>
      (await admin.keys('toolhost:session:*')).filter((k) => k.split(':').length === 3).sort();
    const alices: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await postInitialize(a.url, { token: ALICE });
      await res.text();
      alices.push(res.headers.get('mcp-session-id')!);
    }
    const expected = alices.map((id) => `toolhost:session:${id}`).sort();
    expect(await sessionKeys()).toEqual(expected);
    redis.pause();
    let bobs: number[];
    try {
      // At the host-wide cap: each would close Alice's least recent idle session to make room.
      bobs = await Promise.all(
        [1, 2, 3].map(async () => {
          const res = await postInitialize(a.url, { token: BOB });
          await res.text();
          return res.status;
        }),
      );
    } finally {
      redis.resume();
    }
    expect(bobs).toEqual([503, 503, 503]);
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    for (const replica of [a, b])
      for (const id of alices) expect((await postToSession(replica.url, ALICE, id, ping)).status).toBe(200);
    // Bob's SETs, sent before they timed out, land as Redis thaws: each is removed after it.
    const deadline = Date.now() + 20_000;
    while (JSON.stringify(await sessionKeys()) !== JSON.stringify(expected) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await sessionKeys()).toEqual(expected);
  }, 60_000);

  it('records no session for an initialize refused for its headers or its params', async () => {
    const [a] = await startReplicas();
    const before = await admin.keys('toolhost:session:*');
    const initialize = (headers: Record<string, string>) =>
      fetch(a.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE}`, ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        }),
      });
    expect(
      (await initialize({ accept: 'application/json', 'content-type': 'application/json' })).status,
    ).toBe(406);
    expect(
      (await initialize({ accept: 'application/json, text/event-stream', 'content-type': 'text/plain' }))
        .status,
    ).toBe(415);
    const refused = await postInitialize(a.url, { token: ALICE, params: { clientInfo: null } });
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32602);
    expect(await admin.keys('toolhost:session:*')).toEqual(before);
  }, 60_000);

  it('refuses an answer nested thousands of levels deep as invalid, not as the store being away', async () => {
    const [a] = await startReplicas();
    const { transport } = await connect(a.url);
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    // Answers are relayed through Redis, written as JSON: this one overflowed the stack there,
    // and was answered 503 as though Redis were away.
    const answer = await fetch(a.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ALICE}`,
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: `{"jsonrpc":"2.0","id":3,"result":${deep}}`,
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/nests more/);
  }, 60_000);

  it('answers 2026-07-28 requests on either replica with no session record in Redis', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    const keysBefore = (await admin.keys('toolhost:session:*')).length;
    const client = new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    for (let i = 0; i < 4; i += 1) expect((await getItem(client, `m${i}`)).isError).toBeFalsy();
    const posts = balancer.forwarded.filter((f) => f.method === 'POST');
    expect(new Set(posts.map((f) => f.target))).toEqual(new Set([origin(a), origin(b)]));
    expect(posts.every((f) => f.session === undefined && f.status === 200)).toBe(true);
    expect((await admin.keys('toolhost:session:*')).length).toBe(keysBefore);
    expect(upstream.requests.length).toBe(4);
  }, 60_000);

  it('keeps serving when replica A stops in the middle of a load: B answers everything, no token lost', async () => {
    const [a, b] = await startReplicasToKillA();
    const store = await RedisTokenStore.open(admin, TokenCipher, TOKEN_KEY);
    // Expired: the first calls refresh it, once for both replicas.
    const issued = await storeAuthorized(oauth, store, 'alice', Date.now() - 1000);
    const { client } = await connect(`${balancer.url}/mcp`);
    let done = 0;
    let retries = 0;
    /** A call as a client behind a load balancer makes it: a failed exchange is tried again. */
    const call = async (i: number) => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const result = await getItem(client, `i${i}`);
          if (!result.isError) return result;
          if (attempt >= 4) return result;
        } catch (e) {
          if (attempt >= 4) throw e;
        }
        retries += 1;
      }
    };
    const results: CallToolResult[] = [];
    const worker = async (w: number) => {
      for (let i = w; i < 40; i += 4) {
        results.push(await call(i));
        done += 1;
        if (done === 20) a.child.kill('SIGKILL');
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(results).toHaveLength(40);
    expect(results.filter((r) => r.isError)).toEqual([]);
    await a.exited;
    expect(balancer.targets).toEqual([origin(b)]);
    const after = balancer.forwarded.slice(-10);
    expect(after.every((f) => f.target === origin(b))).toBe(true);

    const stored = (await store.get('echo-auth', 'alice'))!;
    expect(oauth.grants).toEqual([{ grant_type: 'refresh_token', refresh_token: issued.refreshToken }]);
    expect(stored.accessToken).not.toBe(issued.accessToken);
    expect(stored.expiresAt).toBeGreaterThan(Date.now());
    expect(new Set(upstream.requests.map((r) => r.headers.authorization))).toEqual(
      new Set([`Bearer ${stored.accessToken}`]),
    );
    // The refreshed token still refreshes: nothing half-written.
    expect(stored.refreshToken).toBeTruthy();
    expect(retries).toBeLessThan(40);
  }, 90_000);
});
