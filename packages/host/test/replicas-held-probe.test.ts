import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { keysWithoutExpiry, perRequestState, seen, watchSessions } from './replica-probe-support.js';
import { storeAliceToken } from './replica-scenarios.js';
import {
  admin,
  balancer,
  clients,
  connect,
  origin,
  startReplicas,
  suite,
  upstream,
  useReplicaSuite,
} from './replicas-setup.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

useReplicaSuite();
watchSessions();

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tools/call POSTed to one replica, the client hanging up once the headers are in: its status. */
async function postAndHangUp(url: string, session: string, id: number): Promise<number> {
  const left = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    signal: left.signal,
    headers: {
      authorization: `Bearer ${ALICE}`,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'EchoApi_GetItem', arguments: { item_id: `held${id}` } },
    }),
  });
  const status = res.status;
  if (status === 200) left.abort();
  else await res.text();
  return status;
}

describe('replica probe: clients that hang up and send again', () => {
  it('bounds each replica copy at 128 held requests, and frees every id once its call answers', async () => {
    const [a, b] = await startReplicas();
    await storeAliceToken(suite(), 'items.read');
    // The held calls wait at the upstream until every POST is in: none answers (and frees its id) early.
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    onTestFinished(() => release());
    upstream.respond(async (r) => {
      if (r.path.startsWith('/items/held')) await gate;
      return { body: { path: r.path } };
    });
    balancer.pick = () => origin(a);
    const { client, transport } = await connect(`${balancer.url}/mcp`);
    const session = transport.sessionId!;
    const statuses = { a: [] as number[], b: [] as number[] };
    for (let i = 0; i < 140; i += 1) statuses.a.push(await postAndHangUp(a.url, session, 1000 + i));
    for (let i = 0; i < 140; i += 1) statuses.b.push(await postAndHangUp(b.url, session, 1000 + i));
    const count = (list: number[], s: number) => list.filter((x) => x === s).length;
    expect([count(statuses.a, 200), count(statuses.a, 429)]).toEqual([128, 12]);
    expect([count(statuses.b, 200), count(statuses.b, 429)]).toEqual([128, 12]);
    // One copy of the session per replica, however often its client hung up.
    expect(seen.transports.size).toBe(2);
    release();
    await vi.waitFor(() => expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 }), {
      timeout: 30_000,
      interval: 100,
    });
    expect(upstream.requests.filter((r) => r.path.startsWith('/items/held'))).toHaveLength(256);
    // Every id is free again, on both replicas: a request under one is served.
    const again = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'after' } });
    expect(again.isError).toBeFalsy();
    expect(await keysWithoutExpiry(admin)).toEqual([]);
  }, 60_000);
});

describe('replica probe: sessions opened and abandoned across replicas', () => {
  it('keeps every session key under an expiry, and lets each replica forget them once idle', async () => {
    await startReplicas({ http: { publicUrl: balancer.url, sessionIdleSeconds: 5 } });
    await storeAliceToken(suite(), 'items.read');
    for (let i = 0; i < 24; i += 1) {
      // Round robin: the initialize on one replica, the listing on the other (a rebuilt copy).
      const client = new Client({ name: `abandoning-${i}`, version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
        }),
      );
      await client.listTools();
      await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: `a${i}` } });
      clients.push(client);
    }
    expect(await keysWithoutExpiry(admin)).toEqual([]);
    // At the per-user cap (16) a replica ends the least recently used session everywhere (fewer
    // where a loaded machine took longer than the idle time to open the rest).
    expect((await admin.keys('toolhost:session:*')).length).toBeLessThanOrEqual(16);
    // Never ended by their clients: gone from Redis and from each replica once idle.
    await vi.waitFor(async () => expect(await admin.keys('toolhost:session:*')).toEqual([]), {
      timeout: 30_000,
      interval: 200,
    });
    const closed = (t: unknown) => (t as { closed: boolean }).closed;
    await vi.waitFor(() => expect([...seen.transports].filter((t) => !closed(t))).toHaveLength(0), {
      timeout: 30_000,
      interval: 200,
    });
    expect(seen.transports.size).toBeGreaterThanOrEqual(48);
    // Nothing holds the closed sessions any more: their transports and servers are collected.
    const refs = [...seen.transports, ...seen.servers].map((o) => new WeakRef(o));
    seen.transports.clear();
    seen.servers.clear();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    await vi.waitFor(
      async () => {
        gc();
        await wait(50);
        expect(refs.filter((r) => r.deref() !== undefined).length).toBe(0);
      },
      { timeout: 10_000, interval: 200 },
    );
  }, 100_000);
});
