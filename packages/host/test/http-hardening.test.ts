import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { capturedLogger, fixtureApp } from './support.js';

const TOKEN = 'user-one-token-123456';
let upstream: RecordingUpstream;
let host: Host;
let open: HttpServerHandle;
let guarded: HttpServerHandle;
let lines: () => string;

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (id: number | string = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });

/** node:http, because fetch may not set Host. */
function rawPost(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads a Streamable HTTP answer (JSON or SSE) into its JSON-RPC messages. */
async function messagesOf(res: Response): Promise<{ id?: unknown; result?: unknown; error?: unknown }[]> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)));
  }
  return text ? [JSON.parse(text)].flat() : [];
}

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const captured = capturedLogger('debug');
  lines = captured.lines;
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
  const { logger } = captured;
  open = await serveHttp(host, { port: 0, logger });
  guarded = await serveHttp(host, { port: 0, logger, accessTokens: new AccessTokens({ u1: TOKEN }) });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
  await host.close();
  await upstream.close();
});

describe('HTTP requests are checked before they are read', () => {
  it('refuses a request without a valid access token before reading its body', async () => {
    const res = await fetch(guarded.url, { method: 'POST', headers: mcpHeaders, body: '{not json' });
    expect(res.status).toBe(401);
    const big = await fetch(guarded.url, {
      method: 'POST',
      headers: mcpHeaders,
      body: 'x'.repeat(5 * 1024 * 1024),
    });
    expect(big.status).toBe(401);
  });

  it('refuses a Host that is not this server (DNS rebinding without an Origin)', async () => {
    const port = new URL(open.url).port;
    const evil = await rawPost(open.url, { ...mcpHeaders, host: 'evil.com' }, initialize());
    expect(evil.status).toBe(403);
    expect(evil.text).toMatch(/Host/);
    const ours = await rawPost(open.url, { ...mcpHeaders, host: `localhost:${port}` }, initialize());
    expect(ours.status).toBe(200);
  });
});

describe('/healthz and the OAuth pages', () => {
  it('answers a bare status without an access token, and the details with one', async () => {
    const bare = await fetch(new URL('/healthz', guarded.url));
    expect(bare.status).toBe(200);
    expect(await bare.json()).toEqual({ status: 'ok' });
    const full = await fetch(new URL('/healthz', guarded.url), {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await full.json()).toMatchObject({ status: 'ok', tools: 3 });
  });

  it('answers a malformed callback path with 400, logging no error', async () => {
    const res = await fetch(new URL('/oauth/callback/%E0%A4%A', open.url));
    expect(res.status).toBe(400);
    expect(lines()).not.toMatch(/"level":50/);
  });
});

describe('JSON-RPC errors', () => {
  it('answer PUT and PATCH on the MCP path 405, naming the methods it takes', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const res = await fetch(open.url, { method, headers: mcpHeaders, body: initialize() });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
      expect(await res.json()).toMatchObject({ error: { message: 'Method not allowed' } });
    }
  });

  it('carry the request id when it is known', async () => {
    const res = await fetch(open.url, {
      method: 'POST',
      headers: { ...mcpHeaders, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ id: 42, error: { message: 'Session not found' } });
  });

  it('carry the bare text on the wire, so that a client says "MCP error" at most once', async () => {
    const opened = await fetch(open.url, { method: 'POST', headers: mcpHeaders, body: initialize() });
    const session = { ...mcpHeaders, 'mcp-session-id': opened.headers.get('mcp-session-id') ?? '' };
    await opened.text();
    const ask = async (id: number, method: string, params: unknown) =>
      (
        await messagesOf(
          await fetch(open.url, {
            method: 'POST',
            headers: session,
            body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          }),
        )
      )[0]?.error as { code: number; message: string };
    const unknownTool = await ask(2, 'tools/call', { name: 'Nope', arguments: {} });
    expect(unknownTool).toEqual({ code: -32602, message: "No tool named 'Nope' is loaded." });
    const unknownResource = await ask(3, 'resources/read', { uri: 'toolhost://results/nope' });
    expect(unknownResource.code).toBe(-32602);
    expect(unknownResource.message).toMatch(/^Resource not found/);
    expect((unknownResource as { data?: unknown }).data).toEqual({ uri: 'toolhost://results/nope' });
    // The SDK's client writes the code into the message once, from the bare text.
    const client = new Client({ name: 'errors', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(open.url)));
    const error = await client.callTool({ name: 'Nope', arguments: {} }).catch((e: Error) => e);
    expect((error as Error).message.match(/MCP error/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect((error as { code?: number }).code).toBe(-32602);
    await client.close();
  });
});

describe('cancellation over HTTP', () => {
  it('answers the POST of a cancelled call', async () => {
    upstream.reset();
    upstream.respond(() => ({ status: 200, body: { late: true }, delayMs: 10_000 }));
    const init = await fetch(open.url, { method: 'POST', headers: mcpHeaders, body: initialize() });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...mcpHeaders, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const post = (body: unknown) => fetch(open.url, { method: 'POST', headers, body: JSON.stringify(body) });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const call = post({
      jsonrpc: '2.0',
      id: 'call-7',
      method: 'tools/call',
      params: { name: 'EchoApi_GetItem', arguments: { item_id: 'slow' } },
    });
    for (let i = 0; i < 500 && upstream.requests.length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'call-7', reason: 'user' },
    });
    expect(cancel.status).toBe(202);
    // Bounded: without an answer the POST would stay open until the upstream's 10 s.
    let timer: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      call.then(messagesOf),
      new Promise<'no answer'>((r) => {
        timer = setTimeout(() => r('no answer'), 4000);
      }),
    ]);
    clearTimeout(timer);
    expect(answer).not.toBe('no answer');
    expect(answer).toEqual([expect.objectContaining({ id: 'call-7', error: expect.anything() })]);
    for (let i = 0; i < 100 && !upstream.requests[0]!.aborted; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(upstream.requests[0]!.aborted).toBe(true);
    upstream.respond(() => ({ status: 200, body: { ok: true } }));
  });
});
