import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolOutcome } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { inlinePlugin } from './support.js';

/**
 * An upstream that answers headers at once, then one byte at a time (a slow-loris answer),
 * or holds every request until released; counts what it has received.
 */
async function slowUpstream(mode: 'trickle' | 'hold') {
  const held: ServerResponse[] = [];
  let received = 0;
  const server: Server = createServer((req, res) => {
    received += 1;
    req.resume();
    if (mode === 'hold') {
      held.push(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"slow":"');
    const timer = setInterval(() => res.write('x'), 200);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    release() {
      for (const res of held.splice(0)) res.end('{"late":true}');
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const tool = (name: string) => ({
  name,
  description: `${name}.`,
  method: 'GET' as const,
  path: `/${name}`,
  auth: { kind: 'none' as const },
  hints: { readOnly: true, idempotent: true },
});

/** The outcome, or 'still running' if the call has not ended within `ms` (a bound, not a speed test). */
async function within(ms: number, call: Promise<ToolOutcome>): Promise<ToolOutcome | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still running'>((r) => {
    timer = setTimeout(() => r('still running'), ms);
  });
  try {
    return await Promise.race([call, bound]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
}

let slow: Awaited<ReturnType<typeof slowUpstream>>;
let other: Awaited<ReturnType<typeof slowUpstream>>;
let host: Host;

beforeAll(async () => {
  slow = await slowUpstream('hold');
  other = await slowUpstream('trickle');
});
afterAll(async () => {
  slow.release();
  await host?.close(0);
  await Promise.all([slow.close(), other.close()]);
});

async function open(engine: Record<string, unknown>, slowUrl = slow.url, otherUrl = other.url) {
  await host?.close(0);
  host = await createHost(
    { toolSets: { Slow: { baseUrl: slowUrl }, Other: { baseUrl: otherUrl } }, engine },
    { plugins: [inlinePlugin('Slow', [tool('Wait')]), inlinePlugin('Other', [tool('Get')])] },
  );
  await host.warm();
  return host;
}

describe('engine.timeoutMs bounds the whole upstream exchange', () => {
  it('ends a call whose answer trickles in byte by byte with a timeout', async () => {
    const h = await open({ timeoutMs: 1000, retry: { maxAttempts: 1 } });
    const outcome = await within(8000, h.callTool('Other.Get', {}));
    expect(outcome).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true } });
  });
});

describe('request slots', () => {
  it('answers timeout when no slot frees up in time', async () => {
    const h = await open({ timeoutMs: 1000, maxConcurrentRequests: 1, retry: { maxAttempts: 1 } });
    const before = slow.received();
    const holding = h.callTool('Slow.Wait', {});
    await until(() => slow.received() === before + 1);
    // Two more queue behind it: the first gets the slot when the holder times out, the
    // second has waited its whole allowance by then.
    const [second, third] = await Promise.all([
      within(8000, h.callTool('Slow.Wait', {})),
      within(8000, h.callTool('Slow.Wait', {})),
    ]);
    expect(await holding).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(second).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(third).toMatchObject({ ok: false, error: { code: 'timeout', retryable: true } });
    expect((third as { error: { message: string } }).error.message).toMatch(/No upstream request slot/);
    expect(slow.received()).toBe(before + 2);
  });

  it('keeps one slow upstream from starving the others', async () => {
    const fast = await slowUpstream('hold');
    const h = await open({ timeoutMs: 20_000 }, slow.url, fast.url);
    const before = slow.received();
    // As many calls to the slow upstream as there are slots in all, never answered.
    const stuck = Array.from({ length: 64 }, () => h.callTool('Slow.Wait', {}));
    await until(() => slow.received() > before + 16);
    const call = h.callTool('Other.Get', {});
    await until(() => fast.received() === 1);
    fast.release();
    expect(await within(8000, call)).toMatchObject({ ok: true, status: 200 });
    slow.release();
    for (let i = 0; i < 10 && slow.received() < before + 64; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      slow.release();
    }
    await Promise.all(stuck);
    await fast.close();
  });
});
