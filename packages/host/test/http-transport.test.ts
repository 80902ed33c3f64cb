import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseOf } from '../../testing/src/catalog-suite.js';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { fixtureApp } from './support.js';

let upstream: RecordingUpstream;
let child: ChildProcess;
let url: string;
let logs = '';
/** Requests for item `held` wait for this before the upstream answers them. */
let held: Promise<void> = Promise.resolve();

beforeAll(async () => {
  upstream = await startRecordingUpstream(async (req) => {
    if (req.path === '/items/held') await held;
    return { status: 200, body: { path: req.path } };
  });
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-http-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } }),
  );
  child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--http', '0'], {
    cwd: fixtureApp,
    env: { PATH: process.env.PATH, ECHO_AUTH_TOKEN: 'tok-http' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      logs += c.toString();
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`host exited ${code}: ${logs}`)));
  });
});

afterAll(async () => {
  child.kill('SIGTERM');
  await upstream.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('Streamable HTTP transport', () => {
  it('binds to loopback by default', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('serves concurrent clients each in their own session', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const transports = [a, b].map((c) => (c.transport as StreamableHTTPClientTransport).sessionId);
    expect(transports[0]).toBeTruthy();
    expect(transports[0]).not.toBe(transports[1]);
    const [ra, rb] = await Promise.all([
      a.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'from-a' } }),
      b.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'from-b' } }),
    ]);
    expect(await responseOf(a, ra)).toEqual({ status: 200, body: { path: '/items/from-a' } });
    expect(await responseOf(b, rb)).toEqual({ status: 200, body: { path: '/items/from-b' } });
    expect((await a.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'EchoApi_CreateItem',
      'EchoApi_DeleteItem',
      'EchoApi_GetItem',
      // The host's own write-preview tools, listed since two of the tools write.
      'apply_preview',
      'preview_tool_call',
    ]);
    expect(a.getInstructions()).toMatch(/get_request_schema/);
    await Promise.all([a.close(), b.close()]);
  });

  it('rejects a foreign Origin (DNS-rebinding protection)', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(res.status).toBe(403);
  });

  it('answers 404 for an unknown session and 400 for a non-initialize request without one', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await post({ 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await post({})).status).toBe(400);
  });

  it("sends the headers of a tool call's answer while the upstream is still answering", async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = (body: unknown, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.json();
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);

    let release = () => {};
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const call = { name: 'EchoApi_GetItem', arguments: { item_id: 'held' } };
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }, session);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(session);
    // The headers came while the upstream held the call (they were sent before it was asked).
    while (!upstream.requests.some((r) => r.path === '/items/held'))
      await new Promise((r) => setTimeout(r, 5));
    release();
    const answer = (await res.json()) as { id: number; result: { content: { text: string }[] } };
    expect(answer.id).toBe(1);
    expect(answer.result.content[0]!.text).toContain('/items/held');
  });

  it('has a health endpoint', async () => {
    const res = await fetch(new URL('/healthz', url));
    expect(await res.json()).toMatchObject({ status: 'ok', tools: 3 });
  });

  it('keeps the token out of its logs', () => {
    expect(logs).not.toContain('tok-http');
  });
});
