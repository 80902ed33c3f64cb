import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ToolError } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, UndiciHttpSender } from './http-sender.js';

let server: Server;
let base: string;
const sender = new UndiciHttpSender();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 2000);
    if (req.url === '/big') return void res.end('x'.repeat(5000));
    if (req.url === '/text') return void res.end('plain words');
    if (req.url === '/zstd') {
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'br, zstd' });
      return void res.end('(zstd frames)');
    }
    if (req.url?.startsWith('/json?')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(new URL(req.url, 'http://x').searchParams.get('body'));
    }
    if (req.url === '/echo') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: req.headers['content-type'] ?? null, body }));
      });
      return;
    }
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

describe('UndiciHttpSender', () => {
  it('returns status and parsed JSON', async () => {
    const res = await sender.send({ method: 'POST', url: `${base}/x?a=1`, headers: {}, body: '{}' }, opts);
    expect(res).toMatchObject({ status: 201, body: { method: 'POST', url: '/x?a=1' } });
  });

  it('names no content type for a request without a body, and JSON for one with it', async () => {
    // axios on its own sends a bodiless POST, PUT or PATCH as a form (HubSpot's publish, cancel,
    // password reset and list associations have no body).
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'GET']) {
      const res = await sender.send({ method, url: `${base}/echo`, headers: {} }, opts);
      expect(res.body, method).toEqual({ type: null, body: '' });
    }
    const headers = { 'content-type': 'application/json' };
    const res = await sender.send({ method: 'POST', url: `${base}/echo`, headers, body: '{"a":1}' }, opts);
    expect(res.body).toEqual({ type: 'application/json', body: '{"a":1}' });
  });

  it('says when the request leaves: once, on its open connection, before the upstream reads it', async () => {
    const seen: string[] = [];
    server.once('request', () => seen.push('upstream'));
    const res = await sender.send(
      { method: 'GET', url: `${base}/left`, headers: {} },
      { ...opts, onDeparture: () => seen.push('departed') },
    );
    expect(res.status).toBe(201);
    expect(seen).toEqual(['departed', 'upstream']);
    // A connection refused: nothing left.
    let departed = 0;
    await failure(
      sender.send(
        { method: 'GET', url: 'http://127.0.0.1:1/x', headers: {} },
        { ...opts, onDeparture: () => (departed += 1) },
      ),
    );
    expect(departed).toBe(0);
  });

  it('returns the numbers of a JSON answer that a double would change as their literals', async () => {
    const text = '{"id": 12345678901234567891, "n": 2, "big": 1e400}';
    const res = await sender.send(
      { method: 'GET', url: `${base}/json?${new URLSearchParams({ body: text })}`, headers: {} },
      opts,
    );
    expect(res.body).toEqual({ id: '12345678901234567891', n: 2, big: '1e400' });
  });

  it('answers a body in a coding it cannot decode as an upstream error that names it, not as text', async () => {
    const e = await failure(
      sender.send({ method: 'POST', url: `${base}/zstd`, headers: {}, body: '{}' }, opts),
    );
    expect(e.info).toEqual({
      code: 'upstream_error',
      status: 201,
      retryable: false,
      message:
        "The upstream answered HTTP 201, its body in content-encoding 'zstd', which cannot be decoded (gzip, deflate and br can), so it is not shown; the request was received, and applied if it writes.",
    });
    expect(e.requestNotSent).toBe(false);
  });

  it('returns non-JSON bodies as text', async () => {
    expect((await sender.send({ method: 'GET', url: `${base}/text`, headers: {} }, opts)).body).toBe(
      'plain words',
    );
  });

  it('keeps JSON nested deeper than the walks over a body can go as its text, brackets in strings aside', async () => {
    const body = async (text: string) =>
      (
        await sender.send(
          { method: 'GET', url: `${base}/json?${new URLSearchParams({ body: text })}`, headers: {} },
          { ...opts, maxResponseBytes: 100_000 },
        )
      ).body;
    const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    const deep = nested(MAX_JSON_DEPTH + 1);
    expect(await body(deep)).toBe(deep);
    expect(await body(nested(MAX_JSON_DEPTH))).toEqual(JSON.parse(nested(MAX_JSON_DEPTH)));
    // Brackets inside strings nest nothing, whatever the escapes before their closing quote.
    const quoted = nested(MAX_JSON_DEPTH - 1, JSON.stringify(`\\"${'['.repeat(2000)}\\`));
    expect(await body(quoted)).toEqual(JSON.parse(quoted));
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

  it('marks a refused connection as a request that was not sent', async () => {
    const e = await failure(
      sender.send({ method: 'POST', url: 'http://127.0.0.1:1/p', headers: {}, body: '{}' }, opts),
    );
    expect(e.info).toMatchObject({ code: 'upstream_unavailable', retryable: true });
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.requestNotSent).toBe(true);
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

describe('UndiciHttpSender behind a proxy from the environment', () => {
  let proxy: Server;
  let proxyUrl: string;
  /** What reached the proxy: absolute-form request lines and CONNECT targets. */
  let reached: string[];

  beforeAll(async () => {
    proxy = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      res.end('via the proxy');
    });
    proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
      reached.push(`CONNECT ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    reached = [];
  });

  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  });

  async function sendWith(env: Record<string, string>, url: string) {
    const viaEnv = new UndiciHttpSender(env);
    try {
      return await viaEnv.send({ method: 'GET', url, headers: {} }, opts);
    } finally {
      viaEnv.close();
    }
  }

  it('sends plain HTTP requests to HTTP_PROXY in absolute form', async () => {
    const res = await sendWith({ HTTP_PROXY: proxyUrl }, `${base}/text?a=1`);
    expect(res.body).toBe('via the proxy');
    expect(reached).toEqual([`GET ${base}/text?a=1`]);
  });

  it('goes direct to the hosts NO_PROXY names', async () => {
    const res = await sendWith({ HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' }, `${base}/text`);
    expect(res.body).toBe('plain words');
    expect(reached).toEqual([]);
  });

  it('does not send https requests through a proxy named for http only', async () => {
    const e = await failure(sendWith({ http_proxy: proxyUrl }, 'https://127.0.0.1:1/x'));
    expect(e.message).toContain('ECONNREFUSED');
    expect(reached).toEqual([]);
  });

  it('tunnels https requests through HTTPS_PROXY, and fails once when the proxy hangs up', async () => {
    // This proxy closes every CONNECT: undici 7 alone would retry it forever.
    const e = await failure(sendWith({ HTTPS_PROXY: proxyUrl }, 'https://127.0.0.1:1/x'));
    expect(e.info.code).toBe('upstream_unavailable');
    expect(e.requestNotSent).toBe(true);
    expect(reached).toEqual(['CONNECT 127.0.0.1:1']);
  });

  it('holds as many requests open to one upstream as it is given connections, not a fixed 64', async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let open = 0;
    const held = createServer((_req, res) => {
      open += 1;
      void gate.then(() => res.end('{}'));
    });
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(held.address() as AddressInfo).port}/held`;
    const wide = new UndiciHttpSender({}, 100);
    try {
      const sent = Array.from({ length: 100 }, () => wide.send({ method: 'GET', url, headers: {} }, opts));
      for (let i = 0; i < 250 && open < 100; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(open).toBe(100);
      release();
      expect((await Promise.all(sent)).every((r) => r.status === 200)).toBe(true);
    } finally {
      release();
      wide.close();
      held.closeAllConnections();
      await new Promise((r) => held.close(r));
    }
  });
});
