import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { capturedLogger, fixtureApp } from './support.js';

// Requests no client library sends, written on a socket as a hostile or careless client would:
// each answered with the 4xx that says what is wrong, never a 500 or an error in the log.

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
let lines: () => string;

/** One request written as it is (fetch would normalize the target); its status line and body. */
function rawRequest(request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.end(request);
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The per-request `_meta` every 2026-07-28 request carries. */
const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const get = (target: string) =>
  rawRequest(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`);

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const captured = capturedLogger('debug');
  lines = captured.lines;
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
  server = await serveHttp(host, { port: 0, logger: captured.logger });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await upstream.close();
});

describe('odd request targets', () => {
  it('reads a target as a path, and answers one that is no URL at all 400, logging no error', async () => {
    // Resolved against a base, `//` and `/\` name a host that is not there (the parser throws)
    // and `//x/mcp` names host x with the path /mcp.
    for (const target of ['//', '/\\', '//[::1', '//x/mcp']) {
      const answer = await get(target);
      expect(answer.status, target).toBe(404);
    }
    expect((await get('http://[x]/mcp')).status).toBe(400);
    expect((await get('/healthz')).status).toBe(200);
    expect(lines()).not.toMatch(/"level":50/);
  });

  it('serves a 2026-07-28 request sent with an absolute-form target', async () => {
    // server/discover goes to the SDK's entry, which is handed a web Request built from it.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: { _meta: MODERN_ENVELOPE },
    });
    const answer = await rawRequest(
      [
        `POST http://127.0.0.1:${server.port}/mcp HTTP/1.1`,
        `Host: 127.0.0.1:${server.port}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        'MCP-Protocol-Version: 2026-07-28',
        'Mcp-Method: server/discover',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      id: 1,
      result: { supportedVersions: expect.anything() },
    });
    expect(lines()).not.toMatch(/"level":50/);
  });
});

describe('odd JSON-RPC bodies', () => {
  it('answers a 2026-07-28 tools/list whose envelope nests thousands of levels deep, logging no error', async () => {
    const levels = 100_000;
    const capabilities = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const envelope = JSON.stringify(MODERN_ENVELOPE).replace(
      '"io.modelcontextprotocol/clientCapabilities":{}',
      `"io.modelcontextprotocol/clientCapabilities":${capabilities}`,
    );
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":${envelope}}}`,
    });
    expect(res.status).toBeLessThan(500);
    expect(await res.json()).toMatchObject({ id: 7 });
    expect(lines()).not.toMatch(/"level":50/);
  });

  it('refuses a 2026-07-28 tools/list or tools/call with a member no request has (__proto__ among them), sending nothing upstream', async () => {
    const post = (method: string, params: { name?: string }, body: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          ...MCP_HEADERS,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(params.name ? { 'mcp-name': params.name } : {}),
        },
        body,
        signal: AbortSignal.timeout(30_000),
      });
    const requests = [
      { method: 'tools/list', params: {}, member: '"__proto__":{"polluted":true}' },
      {
        method: 'tools/call',
        params: { name: 'EchoApi_GetItem', arguments: { item_id: 'x' } },
        member: '"x":1',
      },
    ];
    for (const [i, { method, params, member }] of requests.entries()) {
      const message = JSON.stringify({
        jsonrpc: '2.0',
        id: 40 + i,
        method,
        params: { ...params, _meta: MODERN_ENVELOPE },
      });
      // The same request well formed first: its envelope's verdict is then known (modernRevisionOf).
      expect((await post(method, params, message)).status, method).toBe(200);
      upstream.reset();
      // The SDK's server drops what its schemas refuse, unanswered: this request would hang for good.
      const res = await post(method, params, `${message.slice(0, -1)},${member}}`);
      expect(res.status, method).toBe(400);
      expect(await res.json(), method).toMatchObject({ id: 40 + i, error: { code: -32600 } });
      expect(upstream.requests, method).toHaveLength(0);
    }
    expect(lines()).not.toMatch(/"level":50/);
  });

  it('refuses answers nested thousands of levels deep, and a batch with them leaves no request behind', async () => {
    const opened = await fetch(server.url, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      }),
    });
    await opened.text();
    const headers = {
      ...MCP_HEADERS,
      'mcp-session-id': opened.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-06-18',
    };
    const post = (body: string) => fetch(server.url, { method: 'POST', headers, body });
    await (await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).text();
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const single = await post(`{"jsonrpc":"2.0","id":77,"result":${deep}}`);
    expect(single.status).toBe(400);
    expect(await single.json()).toMatchObject({ error: { code: -32600, message: /nests more than 100/ } });
    const batch = await post(
      `[{"jsonrpc":"2.0","id":78,"result":${deep}},{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
    );
    expect(batch.status).toBe(400);
    await batch.text();
    // Had the batch's ping been taken and not answered, its id would still be in use.
    const ping = await post('{"jsonrpc":"2.0","id":5,"method":"ping"}');
    expect(await ping.json()).toMatchObject({ id: 5, result: {} });
    expect(lines()).not.toMatch(/"level":50/);
  });
});

describe('HEAD', () => {
  it('answers HEAD on the probes and the home page as GET, without a body', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/']) {
      const head = await fetch(new URL(path, server.url), { method: 'HEAD' });
      const got = await fetch(new URL(path, server.url));
      expect(head.status, path).toBe(got.status);
      expect(head.headers.get('content-type'), path).toBe(got.headers.get('content-type'));
      expect(await head.text()).toBe('');
      await got.text();
    }
  });
});

describe('clients that leave', () => {
  it('logs no error when a client hangs up before its form is read in full', async () => {
    for (const path of ['/connections/sign-in', '/connections/disconnect']) {
      const before = lines().length;
      // The server is reading the body when the client goes: on a loaded machine it may not have
      // read the headers yet after a wait, so the hang-up is tried again, each time later.
      for (let wait = 100; wait <= 3200 && !lines().slice(before).includes('left before'); wait *= 2) {
        const socket = connect(server.port, '127.0.0.1');
        socket.on('error', () => {});
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\naccess_token=`,
        );
        await new Promise((r) => setTimeout(r, wait));
        socket.destroy();
        await new Promise((r) => setTimeout(r, 100));
      }
      await expect.poll(() => lines().slice(before)).toContain('the client left before its request was read');
      expect(lines().slice(before)).not.toMatch(/"level":50/);
    }
  });
});
