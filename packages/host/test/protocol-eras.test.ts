import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseOf } from '../../testing/src/catalog-suite.js';
import {
  heldAnswers,
  type RecordingUpstream,
  startRecordingUpstream,
} from '../../testing/src/recording-upstream.js';
import { spawnHost } from '../../testing/src/spawn-host.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { fixtureApp } from './support.js';

const MODERN = '2026-07-28';
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;

beforeAll(async () => {
  upstream = await startRecordingUpstream(async (req) => ({ status: 200, body: { path: req.path } }));
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
  server = await serveHttp(host, { port: 0, serverInfo: { name: 'toolhost', version: '9.9.9' } });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await upstream.close();
});

/** The per-request `_meta` every 2026-07-28 request carries. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One 2026-07-28 request by hand, with the headers the revision asks for unless overridden. */
async function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  id: number | string = 1,
) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...name,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } }),
  });
  const text = await res.text();
  const length = res.headers.get('content-length');
  // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC answer read by hand, checked field by field below
  const body: any = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1)!
          .slice(5),
      )
    : JSON.parse(text);
  return { status: res.status, headers: res.headers, body, length, bytes: Buffer.byteLength(text) };
}

describe('MCP 2026-07-28 beside the session era on one endpoint', () => {
  it('answers server/discover with the versions it serves, and no session', async () => {
    const { status, headers, body, length, bytes } = await modern('server/discover');
    expect(status).toBe(200);
    // A JSON answer is written whole, with its length, not streamed in chunks.
    expect(headers.get('content-type')).toContain('application/json');
    expect(length).toBe(String(bytes));
    expect(headers.get('mcp-session-id')).toBeNull();
    expect(body.result.supportedVersions).toContain(MODERN);
    expect(body.result.resultType).toBe('complete');
    expect(body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'toolhost' });
  });

  it('lists and calls tools statelessly, each result typed and naming the server', async () => {
    const listed = await modern('tools/list');
    expect(listed.body.result.resultType).toBe('complete');
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toContain('EchoApi_GetItem');
    expect(listed.body.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('toolhost');
    const called = await modern('tools/call', { name: 'EchoApi_GetItem', arguments: { item_id: 'm1' } });
    expect(called.status).toBe(200);
    expect(called.body.result.resultType).toBe('complete');
    expect(JSON.parse(called.body.result.content[0].text)).toEqual({ path: '/items/m1' });
    expect(upstream.requests.at(-1)?.path).toBe('/items/m1');
  });

  it("gives cache hints: the tool list for anyone a while, a caller's stored results private", async () => {
    const tools = (await modern('tools/list')).body.result;
    expect(tools).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    const resources = (await modern('resources/list')).body.result;
    expect(resources).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const templates = (await modern('resources/templates/list')).body.result;
    expect(templates).toMatchObject({
      resourceTemplates: [{ name: 'results', uriTemplate: 'toolhost://results/{id}' }],
      cacheScope: 'public',
    });
    // The session era's answers carry none of them.
    const v1 = new V1Client({ name: 'v1', version: '0' });
    await v1.connect(new V1HttpTransport(new URL(server.url)));
    const legacy = await v1.listTools();
    expect(legacy).not.toHaveProperty('ttlMs');
    expect(legacy).not.toHaveProperty('resultType');
    await v1.close();
  });

  it('refuses an unknown tool with -32602 and bad arguments with an isError result', async () => {
    const unknown = await modern('tools/call', { name: 'Nope', arguments: {} });
    expect(unknown.body.error.code).toBe(-32602);
    const before = upstream.requests.length;
    const bad = await modern('tools/call', { name: 'EchoApi_GetItem', arguments: { item_id: 42 } });
    expect(bad.body.result.isError).toBe(true);
    expect(bad.body.result.content[0].text).toMatch(/item_id/);
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses a version it does not serve with -32022 naming the supported ones, with the id', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2099-01-01',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/list',
        params: { _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      }),
    });
    const body = (await res.json()) as { id: number; error: { code: number; data: { supported: string[] } } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(MODERN);
  });

  it('checks the Mcp-Method and Mcp-Name headers against the body', async () => {
    const method = await modern('tools/list', {}, { 'mcp-method': 'tools/call' }, 8);
    expect(method.status).toBe(400);
    expect(method.body).toMatchObject({ id: 8, error: { code: -32020 } });
    const name = await modern(
      'tools/call',
      { name: 'EchoApi_GetItem', arguments: { item_id: 'x' } },
      { 'mcp-name': 'EchoApi_DeleteItem' },
      9,
    );
    expect(name.status).toBe(400);
    expect(name.body.error.code).toBe(-32020);
  });

  it('serves the v2 client negotiating the era (auto) and the v1 client on the same endpoint', async () => {
    const v2 = new Client({ name: 'v2', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    await v2.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    expect(v2.getProtocolEra()).toBe('modern');
    const v1 = new V1Client({ name: 'v1', version: '0' });
    await v1.connect(new V1HttpTransport(new URL(server.url)));
    for (const client of [v2, v1]) {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('EchoApi_GetItem');
    }
    const r2 = await v2.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'v2' } });
    expect(await responseOf(v2, r2)).toEqual({ status: 200, body: { path: '/items/v2' } });
    const r1 = await v1.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'v1' } });
    expect((r1.content as { text: string }[])[0]!.text).toBe(JSON.stringify({ path: '/items/v1' }));
    await v2.close();
    await v1.close();
  });

  it('ends the call when the client closes the response, as 2026-07-28 cancels', async () => {
    const { responder, release } = heldAnswers({ status: 200, body: {} });
    upstream.respond(responder);
    const cancelled = async () =>
      /toolhost_tool_errors_total\{tool_set="EchoApi",code="cancelled"\} 1$/m.test(await host.metrics());
    try {
      expect(await cancelled()).toBe(false);
      const before = upstream.requests.length;
      const leaving = new AbortController();
      const call = fetch(server.url, {
        method: 'POST',
        signal: leaving.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'EchoApi_GetItem',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'leaving',
          method: 'tools/call',
          params: { name: 'EchoApi_GetItem', arguments: { item_id: 'slow' }, _meta: envelope },
        }),
      }).catch(() => undefined);
      await expect.poll(() => upstream.requests.length, { timeout: 5000 }).toBe(before + 1);
      leaving.abort();
      await call;
      await expect.poll(cancelled, { timeout: 5000 }).toBe(true);
    } finally {
      release();
      upstream.respond(async (req) => ({ status: 200, body: { path: req.path } }));
    }
  });

  it('keeps no session for 2026-07-28 requests (health counts only session-era ones)', async () => {
    const health = async () =>
      ((await (await fetch(new URL('/healthz', server.url))).json()) as { sessions: number }).sessions;
    const before = await health();
    for (let i = 0; i < 20; i += 1) await modern('tools/list', {}, {}, i);
    expect(await health()).toBe(before);
  });
});

describe('both eras over stdio', () => {
  it('serves the v2 client negotiating 2026-07-28 and a client opening with initialize', async () => {
    const config = { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } };
    const options = { env: { ECHO_AUTH_TOKEN: 'static-token-x' }, cwd: fixtureApp };
    const modernHost = await spawnHost(config, { ...options, protocol: 'auto' });
    const legacyHost = await spawnHost(config, options);
    try {
      expect(modernHost.client.getProtocolEra()).toBe('modern');
      expect(legacyHost.client.getProtocolEra()).toBe('legacy');
      for (const [i, { client }] of [modernHost, legacyHost].entries()) {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('EchoApi_GetItem');
        const result = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: `s${i}` } });
        expect(await responseOf(client, result)).toEqual({ status: 200, body: { path: `/items/s${i}` } });
      }
    } finally {
      await modernHost.close();
      await legacyHost.close();
    }
  });
});
