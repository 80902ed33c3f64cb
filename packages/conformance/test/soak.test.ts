import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost, type Host, type HttpServerHandle, serveHttp } from '@toolhost/host';
import { type RecordedRequest, type RecordingUpstream, startRecordingUpstream } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Bounded in time and loopback only: 16 sessions for a few seconds against injected faults.
const SESSIONS = 16;
// A fixed number of calls, not a fixed time: what is asserted must not depend on the machine's speed.
const CALLS_PER_SESSION = 30;

/** A small deterministic PRNG so a failing run can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
const applied = new Map<string, number>();

function writeId(req: RecordedRequest): string | undefined {
  return (req.body as { properties?: { write_id?: string } } | undefined)?.properties?.write_id;
}

beforeAll(async () => {
  const random = prng(20261122);
  upstream = await startRecordingUpstream((req) => {
    const roll = random();
    const id = writeId(req);
    if (roll < 0.05) {
      // Dropped after the request arrived: the write may have happened; count it as applied.
      if (id) applied.set(id, (applied.get(id) ?? 0) + 1);
      throw new Error('drop the connection');
    }
    if (roll < 0.15) return { status: 503, body: { message: 'unavailable' } };
    if (roll < 0.25) return { status: 429, headers: { 'retry-after': '0' }, body: { message: 'slow down' } };
    if (id) applied.set(id, (applied.get(id) ?? 0) + 1);
    return { status: 200, body: { ok: true }, delayMs: roll < 0.35 ? 150 : 0 };
  });
  host = await createHost(
    {
      plugins: ['@toolhost/plugin-crm-events'],
      // HubSpot's pacing (9 a second) would hold the ~600 upstream requests for over a minute
      // and exercise nothing more: the faults, retries and sessions are what this soaks.
      toolSets: { CrmEventsApi: { baseUrl: upstream.url, pacing: false } },
      engine: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    },
    { env: { CRM_AUTH_PROVIDER_TOKEN: 'soak-token' } },
  );
  server = await serveHttp(host, { port: 0, maxSessionsPerUser: SESSIONS });
});

afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
});

interface Result {
  kind: 'write' | 'read' | 'delete';
  id?: string;
  ok: boolean;
  code?: string;
}

async function session(index: number): Promise<Result[]> {
  const client = new Client({ name: `soak-${index}`, version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  const results: Result[] = [];
  let n = 0;
  while (n < CALLS_PER_SESSION) {
    n += 1;
    const pick = n % 3;
    if (pick === 0) {
      const id = `w-${index}-${n}`;
      const body = { eventName: 'pe1_soak', email: 'a@b.com', properties: { write_id: id } };
      const r = await client.callTool({
        name: 'CrmEventsApi_SendEventData',
        arguments: { mode: 'execute', request_body: JSON.stringify(body) },
      });
      const error = (r.structuredContent as { error?: { code: string } } | undefined)?.error;
      results.push({ kind: 'write', id, ok: !r.isError, code: error?.code });
    } else {
      const name = pick === 1 ? 'CrmEventsApi_ListEventTypes' : 'CrmEventsApi_DeleteCustomEventDefinition';
      const r = await client.callTool({ name, arguments: pick === 1 ? {} : { event_name: `e${n}` } });
      const error = (r.structuredContent as { error?: { code: string } } | undefined)?.error;
      results.push({ kind: pick === 1 ? 'read' : 'delete', ok: !r.isError, code: error?.code });
    }
  }
  await transport.terminateSession();
  await client.close();
  return results;
}

describe('soak under injected faults', () => {
  it('answers every call, loses and duplicates no write, and leaks nothing', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const all = (await Promise.all(Array.from({ length: SESSIONS }, (_, i) => session(i)))).flat();

    expect(all.length).toBe(SESSIONS * CALLS_PER_SESSION);
    const writes = all.filter((r) => r.kind === 'write');
    for (const w of writes) {
      const count = applied.get(w.id!) ?? 0;
      expect(count, `write ${w.id} applied ${count} times`).toBeLessThanOrEqual(1);
      if (w.ok) expect(count, `write ${w.id} succeeded but was not applied`).toBe(1);
      else expect(['upstream_error', 'upstream_unavailable', 'upstream_rate_limited']).toContain(w.code);
    }
    // Reads and deletes are idempotent: retried through 5xx and drops, so most succeed.
    const idempotent = all.filter((r) => r.kind !== 'write');
    expect(idempotent.filter((r) => r.ok).length / idempotent.length).toBeGreaterThan(0.9);

    // Pooled keep-alive sockets are bounded by the engine's concurrency limit.
    expect(await upstream.connections()).toBeLessThanOrEqual(64);
    gc?.();
    const growthMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    expect(growthMb, `heap grew ${growthMb.toFixed(1)} MB`).toBeLessThan(64);
    expect(
      (await fetch(new URL('/healthz', server.url)).then((r) => r.json())) as { sessions: number },
    ).toMatchObject({
      sessions: 0,
    });
  });
});
