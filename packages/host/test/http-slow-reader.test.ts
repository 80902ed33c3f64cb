import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { EventStream } from '../src/http/event-stream.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { SessionTransport } from '../src/http/session-transport.js';
import { Server } from '../src/mcp/sdk.js';
import { fixtureApp } from './support.js';

// A client that opens the session's event stream (GET) and then stops reading it, while the
// server has notifications for it (log lines, progress of calls answered as JSON): what the
// socket cannot take was held in the response, every notification, for as long as the
// session lived. Past a MiB held, notifications are dropped, as when no stream is open.

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
/** Each session's MCP server, by its transport; each event stream's response. */
const servers = new Map<unknown, Server>();
const streams = new Set<ServerResponse>();
const connectServer = Server.prototype.connect;
const writeEvent = EventStream.prototype.write;

beforeAll(async () => {
  Server.prototype.connect = function (this: Server, transport) {
    servers.set(transport, this);
    return connectServer.call(this, transport);
  };
  EventStream.prototype.write = function (this: EventStream, message) {
    streams.add((this as unknown as { res: ServerResponse }).res);
    return writeEvent.call(this, message);
  };
  upstream = await startRecordingUpstream();
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  Server.prototype.connect = connectServer;
  EventStream.prototype.write = writeEvent;
  await server.close();
  await host.close();
  await upstream.close();
});

/** The session's GET event stream on a raw socket, paused once its headers are in. */
async function unreadStream(sessionId: string): Promise<Socket> {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n` +
      `Mcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n`,
  );
  const head = await new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  socket.pause();
  return socket;
}

/** A session opened by hand (an SDK client would open its own event stream); `post` sends on it. */
async function openSession() {
  let sessionId = '';
  const post = async (body: Record<string, unknown>) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    sessionId ||= res.headers.get('mcp-session-id') ?? '';
    const text = await res.text();
    return text ? (JSON.parse(text) as { result?: { tools?: unknown[] } }) : undefined;
  };
  const clientInfo = { name: 'slow-reader', version: '0' };
  await post({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
  });
  await post({ method: 'notifications/initialized' });
  await post({ id: 2, method: 'logging/setLevel', params: { level: 'info' } });
  return { sessionId, post };
}

describe('an event stream its client does not read', () => {
  it('holds at most about a MiB of notifications, and delivers again once read', {
    timeout: 60_000,
  }, async () => {
    const { sessionId, post } = await openSession();
    const socket = await unreadStream(sessionId);
    const session = [...servers].find(
      ([t]) => t instanceof SessionTransport && t.sessionId === sessionId,
    )![1];
    // 48 MB of log lines, far beyond what the sockets' kernel buffers take (a few MB).
    const line = 'x'.repeat(16_000);
    for (let i = 0; i < 3000; i += 1) await session.sendLoggingMessage({ level: 'info', data: { i, line } });
    expect(streams.size).toBe(1);
    const [res] = [...streams];
    expect(res!.writableLength).toBeLessThan(2 * 2 ** 20);
    // The client reads again: what was held drains, and the next notification reaches it.
    let received = '';
    socket.on('data', (d) => {
      received = (received + String(d)).slice(-100_000);
    });
    socket.resume();
    await expect.poll(() => res!.writableLength, { timeout: 20_000 }).toBe(0);
    await session.sendLoggingMessage({ level: 'info', data: 'after the drain' });
    await expect.poll(() => received.includes('after the drain'), { timeout: 10_000 }).toBe(true);
    // The session still answers on its POSTs.
    expect((await post({ id: 3, method: 'tools/list' }))?.result?.tools?.length).toBeGreaterThan(0);
    socket.destroy();
  });
});
