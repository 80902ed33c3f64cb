import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type JSONRPCMessage, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { readBody } from '@toolhost/authorization-server/http-body';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionTransport, type SessionTransportOptions } from './session-transport.js';

const SESSION = 'session-1';
const VERSION = '2025-06-18';

/** One session's transport behind a loopback HTTP server, with an MCP server whose tools exercise it. */
async function start(options: Partial<SessionTransportOptions> = {}) {
  const seen: JSONRPCMessage[] = [];
  const transport = new SessionTransport({
    sessionId: SESSION,
    // The engine's default: at most 128 requests unanswered.
    maxConcurrentRequests: 64,
    answersDirectly: (request) => String(request.params?.name).startsWith('direct'),
    ...options,
  });
  const server = new Server({ name: 't', version: '0' }, { capabilities: { tools: {} } });
  // The calls waiting, released first in, first out.
  const waiting: (() => void)[] = [];
  let left = 0;
  server.setRequestHandler('tools/list', async () => ({ tools: [] }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    if (name === 'ask' || name === 'direct-ask') {
      const answer = await server.elicitInput(
        { mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } },
        { relatedRequestId: ctx.mcpReq.id },
      );
      return { content: [{ type: 'text', text: answer.action }] };
    }
    if (name === 'wait' || name === 'direct')
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        ctx.mcpReq.signal.addEventListener('abort', () => resolve());
      });
    return { content: [{ type: 'text', text: name }] };
  });
  await server.connect(transport);
  const onmessage = transport.onmessage!;
  transport.onmessage = (m, extra) => {
    seen.push(m);
    onmessage(m, extra);
  };
  const http: HttpServer = createServer(async (req, res) => {
    res.once('close', () => {
      if (!res.writableFinished) left += 1;
    });
    const text = req.method === 'POST' ? await readBody(req, 1e6) : '';
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const stop = async () => {
    await server.close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  };
  const release = () => waiting.shift()?.();
  return { transport, server, url, seen, stop, release, left: () => left };
}

let open: Awaited<ReturnType<typeof start>> | undefined;
afterEach(async () => {
  await open?.stop();
  open = undefined;
});

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'c', version: '0' } },
};
const call = (id: number | string, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

function post(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(open!.url, {
    method: 'POST',
    ...(signal ? { signal } : {}),
    headers: { ...HEADERS, 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A session past its handshake. */
async function ready(options: Partial<SessionTransportOptions> = {}) {
  open = await start(options);
  expect((await post(initialize)).status).toBe(200);
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  open.seen.length = 0;
}

describe('SessionTransport', () => {
  it('answers a request with one JSON body that names the session', async () => {
    open = await start();
    const res = await post(initialize, { 'mcp-session-id': '' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(SESSION);
    expect(await res.json()).toMatchObject({ id: 0, result: { serverInfo: { name: 't' } } });
  });

  it('answers a batch with an array in the order of its requests, and notifications alone with 202', async () => {
    await ready();
    const res = await post([call('b', 'second'), call('a', 'first')]);
    const answers = (await res.json()) as { id: string; result: { content: { text: string }[] } }[];
    expect(answers.map((a) => [a.id, a.result.content[0]!.text])).toEqual([
      ['b', 'second'],
      ['a', 'first'],
    ]);
    const note = await post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
    expect(open!.transport.openRequests).toBe(0);
  });

  it('refuses what the protocol does not allow, before the server sees it', async () => {
    open = await start();
    const refusals: [Promise<Response>, number, number?][] = [
      [post(call(1, 'x')), 400], // before initialize
      [post(initialize, { accept: 'application/json' }), 406],
      [post(initialize, { 'content-type': 'text/plain' }), 415],
      [post([]), 400, -32600],
      [post({ id: 1, method: 'tools/list' }), 400, -32600], // no jsonrpc member
      [post(Array.from({ length: 101 }, (_, i) => call(i, 'x'))), 400, -32600],
      [fetch(open.url, { method: 'PUT', headers: HEADERS }), 405],
    ];
    for (const [res, status, code] of refusals) {
      const r = await res;
      expect(r.status).toBe(status);
      if (code) expect(((await r.json()) as { error: { code: number } }).error.code).toBe(code);
    }
    expect(open.seen).toEqual([]);
  });

  it('names the refused request in a refusal of the transport, when it is known', async () => {
    await ready();
    const refusals: [Promise<Response>, number, number?][] = [
      [post(call(11, 'x'), { accept: 'application/json' }), 406],
      [post(call(12, 'x'), { 'content-type': 'text/plain' }), 415],
      [post(call(13, 'x'), { 'mcp-protocol-version': '1999-01-01' }), 400, -32022],
      [post(call(14, 'x'), { 'mcp-session-id': 'other' }), 404, -32001],
    ];
    for (const [i, [res, status, code]] of refusals.entries()) {
      const r = await res;
      expect(r.status).toBe(status);
      const body = (await r.json()) as {
        id: unknown;
        error: { code: number; data?: { supported: string[] } };
      };
      expect(body.id).toBe(11 + i);
      if (code) expect(body.error.code).toBe(code);
      if (code === -32022) expect(body.error.data?.supported).toContain('2025-11-25');
    }
  });

  it('refuses a second initialize, an unknown protocol version, a reused request id and another session id', async () => {
    await ready();
    expect((await post(initialize)).status).toBe(400);
    expect((await post(call(1, 'x'), { 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    expect((await post(call(1, 'x'), { 'mcp-session-id': 'other' })).status).toBe(404);
    const waiting = post(call(7, 'wait'));
    while (open!.transport.openRequests === 0) await new Promise((r) => setTimeout(r, 5));
    expect((await post(call(7, 'x'))).status).toBe(400);
    open!.release();
    expect(await (await waiting).json()).toMatchObject({ id: 7, result: {} });
  });

  it('turns an answer into an event stream when the server asks the client something first', async () => {
    open = await start();
    const client = new Client({ name: 'c', version: '0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }));
    await client.connect(new StreamableHTTPClientTransport(new URL(open.url)));
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'accept' }]);
    await client.close();

    const raw = await start();
    await open.stop();
    open = raw;
    await post({ ...initialize, params: { ...initialize.params, capabilities: { elicitation: {} } } });
    const res = await post(call(3, 'ask'));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = eventsOf(res);
    const question = (await events.next()) as { method: string; id: number };
    expect(question.method).toBe('elicitation/create');
    // The person's answer comes in a POST of its own; the call's answer then ends the stream.
    expect((await post({ jsonrpc: '2.0', id: question.id, result: { action: 'decline' } })).status).toBe(202);
    expect(await events.next()).toMatchObject({ id: 3, result: { content: [{ text: 'decline' }] } });
    expect(await events.next()).toBeUndefined();
  });

  it('sends the headers of a direct answer while the call runs, and the answer as the body', async () => {
    await ready();
    const res = await post(call(9, 'direct'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(SESSION);
    expect(open!.transport.openRequests).toBe(1);
    open!.release();
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: { content: [{ type: 'text', text: 'direct' }] },
    });

    // The session ends first: its headers are out, so the error comes as the body.
    const left = await post(call(10, 'direct'));
    await open!.transport.close();
    expect(left.status).toBe(200);
    expect(await left.json()).toMatchObject({ id: 10, error: { code: -32001 } });
  });

  it('sends a question of a direct answer on the GET stream, the only place left for it', async () => {
    open = await start();
    await post({ ...initialize, params: { ...initialize.params, capabilities: { elicitation: {} } } });
    const stream = await fetch(open!.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION },
    });
    const events = eventsOf(stream);
    const res = await post(call(11, 'direct-ask'));
    expect(res.headers.get('content-type')).toBe('application/json');
    const question = (await events.next()) as { method: string; id: number };
    expect(question.method).toBe('elicitation/create');
    expect((await post({ jsonrpc: '2.0', id: question.id, result: { action: 'decline' } })).status).toBe(202);
    expect(await res.json()).toMatchObject({ id: 11, result: { content: [{ text: 'decline' }] } });
    await events.cancel();
  });

  it('sends messages of no request on the GET stream, one per session', async () => {
    await ready();
    const get = () =>
      fetch(open!.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION },
      });
    const stream = await get();
    expect(stream.status).toBe(200);
    expect((await get()).status).toBe(409);
    await open!.server.sendToolListChanged();
    const events = eventsOf(stream);
    expect(await events.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await events.cancel();
  });

  it('keeps messages of no request sent while no stream is open for the stream opened next, the last 16', async () => {
    await ready();
    const get = () =>
      fetch(open!.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION },
      });
    // The client's stream drops, and it opens another: what came in between reaches that one.
    await eventsOf(await get()).cancel();
    while (open!.transport.streaming) await new Promise((r) => setTimeout(r, 5));
    const notice = (n: number) => ({
      jsonrpc: '2.0' as const,
      method: 'notifications/elicitation/complete',
      params: { elicitationId: `e${n}` },
    });
    for (let n = 1; n <= 20; n += 1) await open!.transport.send(notice(n));
    const events = eventsOf(await get());
    const nothing = new Promise((r) => setTimeout(r, 2000, 'nothing arrived'));
    expect(await Promise.race([events.next(), nothing])).toEqual(notice(5));
    for (let n = 6; n <= 20; n += 1) expect(await events.next()).toEqual(notice(n));
    await open!.server.sendToolListChanged();
    expect(await events.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await events.cancel();
  });

  it('answers a cancelled request, and every open request when the session ends', async () => {
    await ready();
    const cancelled = post(call(5, 'wait'));
    while (open!.transport.openRequests === 0) await new Promise((r) => setTimeout(r, 5));
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    expect(await (await cancelled).json()).toMatchObject({ id: 5, error: { code: -32800 } });

    const left = post(call(6, 'wait'));
    while (open!.transport.openRequests === 0) await new Promise((r) => setTimeout(r, 5));
    let closed = false;
    const onclose = open!.transport.onclose;
    open!.transport.onclose = () => {
      closed = true;
      onclose?.();
    };
    const del = await fetch(open!.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION },
    });
    expect(del.status).toBe(200);
    expect(closed).toBe(true);
    const answer = await left;
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ id: 6, error: { code: -32001 } });
    expect((await post(call(8, 'x'))).status).toBe(404);
  });

  it('keeps the id of a request its client left until it is answered: no other request gets that answer', async () => {
    await ready();
    const gone = new AbortController();
    const first = post(call(7, 'wait'), {}, gone.signal).catch(() => undefined);
    while (open!.transport.openRequests === 0) await new Promise((r) => setTimeout(r, 5));
    gone.abort();
    await first;
    while (open!.left() === 0) await new Promise((r) => setTimeout(r, 5));
    // The client sends another request under the id of the one it left, still running.
    const reused = post(call(7, 'direct'));
    const refused = await Promise.race([reused, new Promise((r) => setTimeout(r, 500, 'pending'))]);
    open!.release();
    open!.release();
    expect(refused).not.toBe('pending');
    const answer = await (refused as Response).json();
    expect(answer).not.toMatchObject({ result: { content: [{ text: 'wait' }] } });
    expect(answer).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/id 7 is already in use/) },
    });
    // Once the request left is answered (to nobody), its id is free again.
    expect(await (await post(call(7, 'x'))).json()).toMatchObject({
      id: 7,
      result: { content: [{ text: 'x' }] },
    });
  });

  it('refuses a request past 128 unanswered in the session, those its client left included', async () => {
    await ready();
    const waits = (from: number, n: number) => Array.from({ length: n }, (_, i) => call(from + i, 'wait'));
    // A client that starts calls and hangs up: each call still runs, and counts.
    const gone = new AbortController();
    const left = post(waits(1, 100), {}, gone.signal).catch(() => undefined);
    while (open!.transport.openRequests < 100) await new Promise((r) => setTimeout(r, 5));
    gone.abort();
    await left;
    while (open!.left() === 0) await new Promise((r) => setTimeout(r, 5));
    const held = post(waits(101, 28));
    while (open!.transport.openRequests < 128) await new Promise((r) => setTimeout(r, 5));
    const refused = await post(call(129, 'x'));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      id: 129,
      error: { code: -32000, message: expect.stringMatching(/more than 128 requests unanswered/) },
    });
    for (let i = 0; i < 128; i += 1) open!.release();
    expect(((await (await held).json()) as unknown[]).length).toBe(28);
    expect(await (await post(call(130, 'x'))).json()).toMatchObject({ id: 130, result: {} });
  });

  it('ends the session beyond it before answering a DELETE, even when that end closes it first', async () => {
    const order: string[] = [];
    await ready({
      shared: {
        // As on a replica that hears its own broadcast of the end before its write returns.
        remove: async () => {
          order.push('ending');
          await open!.transport.close();
        },
        shareLogLevel: async () => {},
      },
    });
    const onclose = open!.transport.onclose;
    open!.transport.onclose = () => {
      order.push('closed');
      onclose?.();
    };
    const refused = await fetch(open!.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': SESSION, 'mcp-protocol-version': '1999-01-01' },
    });
    expect(refused.status).toBe(400);
    expect(order).toEqual([]);
    const del = await fetch(open!.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION },
    });
    expect(del.status).toBe(200);
    expect(order).toEqual(['ending', 'closed']);
    expect((await post(call(8, 'x'))).status).toBe(404);
  });

  it('tells the session beyond it of a POST once it accepts it, before the server has it, and of none it refuses', async () => {
    const told: { messages: unknown[]; serverHad: number }[] = [];
    await ready({
      shared: {
        remove: async () => {},
        shareLogLevel: async (_id, messages) => void told.push({ messages, serverHad: open!.seen.length }),
      },
    });
    told.length = 0;
    const refusals: Record<string, string>[] = [
      { accept: 'application/json' },
      { 'content-type': 'text/plain' },
      { 'mcp-protocol-version': '1999-01-01' },
      { 'mcp-session-id': 'another' },
    ];
    for (const headers of refusals)
      expect((await post(call(1, 'x'), headers)).status).toBeGreaterThanOrEqual(400);
    expect((await post([call(2, 'x'), { ...call(3, 'x'), extra: 1 }])).status).toBe(400);
    expect([told, open!.seen]).toEqual([[], []]);
    const batch = [call(4, 'x'), call(5, 'x')];
    expect(await (await post(batch)).json()).toMatchObject([{ id: 4 }, { id: 5 }]);
    expect(told).toEqual([{ messages: batch, serverHad: 0 }]);
  });

  it('runs no request a cancellation answered while its POST was being shared', async () => {
    // The share takes Redis round trips; a cancellation relayed (or looped back) meanwhile was
    // answered, and the call then delivered all the same: run after the client was told it did not.
    let sharing: Promise<void> | undefined;
    const told: unknown[][] = [];
    await ready({
      shared: {
        remove: async () => {},
        shareLogLevel: async (_id, messages) => {
          told.push(messages);
          await sharing;
        },
      },
    });
    let shared!: () => void;
    sharing = new Promise<void>((r) => {
      shared = r;
    });
    told.length = 0;
    const batch = post([call(2, 'x'), call(3, 'x')]);
    while (told.length === 0) await new Promise((r) => setTimeout(r, 5));
    open!.transport.deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    shared();
    expect(await (await batch).json()).toMatchObject([
      { id: 2, error: { code: -32800 } },
      { id: 3, result: { content: [{ text: 'x' }] } },
    ]);
    const calls = open!.seen.filter((m) => 'method' in m && m.method === 'tools/call');
    expect(calls).toEqual([call(3, 'x')]);
  });

  it('rebuilds a session from its client initialize request, answering nothing over HTTP', async () => {
    open = await start();
    expect(await open.transport.resume(initialize)).toBe(true);
    expect(open.server.getClientVersion()).toEqual({ name: 'c', version: '0' });
    expect(await (await post(call(1, 'again'))).json()).toMatchObject({ id: 1, result: {} });
    expect(await open.transport.resume(initialize)).toBe(false);
  });
});

/** The messages of an event-stream response, one at a time (undefined once it has ended). */
function eventsOf(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async next(): Promise<unknown> {
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const data = text
            .slice(0, end)
            .split('\n')
            .find((l) => l.startsWith('data: '));
          text = text.slice(end + 2);
          if (data) return JSON.parse(data.slice(6));
          continue;
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        text += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}
