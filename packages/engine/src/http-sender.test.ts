import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxiosHttpSender } from './http-sender.js';

let server: Server;
let base: string;
const sender = new AxiosHttpSender();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 2000);
    if (req.url === '/big') return void res.end('x'.repeat(5000));
    if (req.url === '/text') return void res.end('plain words');
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      return void res.end();
    }
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: req.method, url: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  sender.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

// Generous for the answers that come at once (a loaded CI machine is slow); the timeout case
// sets its own short one against an upstream that waits far longer.
const opts = { timeoutMs: 5000, maxResponseBytes: 1000 };

async function failure(p: Promise<unknown>): Promise<ToolError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(ToolError.isInstance(e)).toBe(true);
  return e as ToolError;
}

describe('AxiosHttpSender', () => {
  it('returns status and parsed JSON', async () => {
    const res = await sender.send({ method: 'POST', url: `${base}/x?a=1`, headers: {}, body: '{}' }, opts);
    expect(res).toMatchObject({ status: 201, body: { method: 'POST', url: '/x?a=1' } });
  });

  it('returns non-JSON bodies as text', async () => {
    expect((await sender.send({ method: 'GET', url: `${base}/text`, headers: {} }, opts)).body).toBe(
      'plain words',
    );
  });

  it('does not follow redirects (credentials must not travel to another host)', async () => {
    expect((await sender.send({ method: 'GET', url: `${base}/redirect`, headers: {} }, opts)).status).toBe(
      302,
    );
  });

  it('times out as a timeout error', async () => {
    const e = await failure(
      sender.send({ method: 'GET', url: `${base}/slow`, headers: {} }, { ...opts, timeoutMs: 200 }),
    );
    expect(e.info).toMatchObject({ code: 'timeout', retryable: true });
  });

  it('bounds the response size', async () => {
    const e = await failure(sender.send({ method: 'GET', url: `${base}/big`, headers: {} }, opts));
    expect(e.info.code).toBe('response_too_large');
  });

  it('reports an unreachable upstream without the URL path or query', async () => {
    const e = await failure(
      sender.send({ method: 'GET', url: 'http://127.0.0.1:1/p?token=s3cr3t', headers: {} }, opts),
    );
    expect(e.info).toMatchObject({ code: 'upstream_unavailable', retryable: true });
    expect(e.message).not.toContain('s3cr3t');
  });

  it('aborts when the caller cancels', async () => {
    const ac = new AbortController();
    const p = sender.send(
      { method: 'GET', url: `${base}/slow`, headers: {} },
      { ...opts, timeoutMs: 5000, signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 20);
    expect((await failure(p)).info.code).toBe('cancelled');
  });
});
