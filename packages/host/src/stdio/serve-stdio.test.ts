import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { heldAnswers, startRecordingUpstream } from '../../../testing/src/recording-upstream.js';
import { fixtureApp, inlinePlugin } from '../../test/support.js';
import { createHost } from '../host.js';
import { createLogger } from '../logger.js';
import { serveStdio } from './serve-stdio.js';

/** A JSON-RPC message read back from stdout, checked field by field. */
interface Answer {
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  error?: { code: number; message: string; data?: unknown };
}

/** The host served over in-memory stdio: what a client writes, and the messages it reads back. */
async function stdioPair(host: Awaited<ReturnType<typeof createHost>>) {
  const stdin = new PassThrough();
  const lines: Answer[] = [];
  let partial = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      partial += chunk.toString();
      const whole = partial.split('\n');
      partial = whole.pop() ?? '';
      for (const line of whole) if (line) lines.push(JSON.parse(line) as Answer);
      done();
    },
  });
  const served = await serveStdio(host, {}, stdin, stdout);
  return {
    send: (message: object) => stdin.write(`${JSON.stringify(message)}\n`),
    raw: (text: string) => stdin.write(text),
    answers: lines,
    answer: async (id: string | number | null) => {
      await expect.poll(() => lines.find((m) => m.id === id), { timeout: 5000 }).toBeDefined();
      return lines.find((m) => m.id === id) as Answer;
    },
    end: () => stdin.end(),
    close: () => served.close(),
  };
}

const MODERN = '2026-07-28';
/** A 2025 session's opening, for the tests run in both eras (the 2026-07-28 era has none). */
const SESSION_INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const getItem = {
  name: 'GetItem',
  description: 'Get one item.',
  method: 'GET' as const,
  path: '/items/{itemId}',
  auth: { kind: 'none' as const },
  params: [
    {
      name: 'item_id',
      in: 'path' as const,
      apiName: 'itemId',
      required: true,
      schema: { type: 'string' },
      description: 'Item id.',
    },
  ],
};

describe('serveStdio', () => {
  it('writes the first tools/list answer before loading what calls need', async () => {
    const host = await createHost({}, { plugins: [inlinePlugin('ItemApi', [getItem])] });
    const written: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        done();
      },
      writev(chunks, done) {
        for (const c of chunks) written.push(String(c.chunk));
        done();
      },
    });
    // What had reached stdout when the host was asked to warm up.
    const warmed = new Promise<string>((resolve) => {
      host.warm = async () => resolve(written.join(''));
    });
    const stdin = new PassThrough();
    const served = await serveStdio(host, {}, stdin, stdout);
    const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const before = (await warmed).split('\n').filter(Boolean);
    const listed = before.map((line) => JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } });
    expect(listed.map((m) => m.id)).toEqual([1, 2]);
    expect(listed[1]?.result?.tools).toHaveLength(1);
    await served.close();
    await host.close();
  });

  it('logs why a message was refused, not the message itself', async () => {
    const host = await createHost({}, { plugins: [inlinePlugin('ItemApi', [getItem])] });
    let logText = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        logText += chunk.toString();
        done();
      },
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const served = await serveStdio(host, { logger: createLogger('info', sink) }, stdin, stdout);
    const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    // Neither request nor response (an object for an id): the SDK's error quotes all of it.
    const item = `customer-4711-${'x'.repeat(512 * 1024)}`;
    send({
      jsonrpc: '2.0',
      id: { n: 2 },
      method: 'tools/call',
      params: { name: 'ItemApi_GetItem', arguments: { item_id: item } },
    });
    // An answer to no request of the server's: what a person typed into a form, say.
    send({ jsonrpc: '2.0', id: 99, result: { action: 'accept', content: { note: 'private-note-0815' } } });
    // Not JSON at all: V8's error quotes the text around the fault.
    stdin.write('{"jsonrpc":"2.0","id":98,"result":{"content":{"pin":private-pin-4242}}}\n');
    stdin.write('private-word-1234\n');
    await expect
      .poll(() => logText.split('\n').filter((l) => l.includes('stdio message refused')).length)
      .toBe(4);
    expect(logText).not.toContain('customer-4711');
    expect(logText).not.toContain('private-note-0815');
    expect(logText).not.toMatch(/private-(pin|word)/);
    expect(logText.length).toBeLessThan(2000);
    await served.close();
    await host.close();
  });

  it('serves 2026-07-28 after its opening: concurrent calls, a cancelled one, and the entry’s own refusals', async () => {
    const slow = heldAnswers({ status: 200, body: {} });
    const release = slow.release;
    const upstream = await startRecordingUpstream(async (req) =>
      req.path === '/items/slow' ? slow.responder(req) : { status: 200, body: { path: req.path } },
    );
    const host = await createHost(
      { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
      { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
    );
    // Read once before any call, so that calls are counted (metrics load when first read).
    await host.metrics();
    const io = await stdioPair(host);
    const call = (id: number | string, args: Record<string, unknown>, name = 'EchoApi_GetItem') =>
      io.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args, _meta: envelope },
      });
    try {
      io.send({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: envelope } });
      expect((await io.answer('discover')).result?.supportedVersions).toContain(MODERN);
      io.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { _meta: envelope } });
      const listed = (await io.answer('list')).result;
      expect(((listed?.tools ?? []) as { name: string }[]).map((t) => t.name)).toContain('EchoApi_GetItem');
      expect(listed?.resultType).toBe('complete');

      // Concurrent calls, each answered under its own id with its own upstream answer.
      for (let i = 0; i < 6; i += 1) call(i, { item_id: `c${i}` });
      for (let i = 0; i < 6; i += 1) {
        const { result } = await io.answer(i);
        expect(result?.resultType).toBe('complete');
        expect(result?._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'toolhost' });
        expect(result?._meta?.['toolhost/status']).toBe(200);
        expect(result?.content).toEqual([{ type: 'text', text: JSON.stringify({ path: `/items/c${i}` }) }]);
      }
      // Bad arguments are the call's error; an unknown tool is the protocol's.
      call('bad', { item_id: 5 });
      expect((await io.answer('bad')).result?.isError).toBe(true);
      call('unknown', {}, 'EchoApi_Nope');
      expect((await io.answer('unknown')).error?.code).toBe(-32602);

      // A cancelled call ends (its upstream request aborted) and is not answered.
      const cancelled = async () =>
        /toolhost_tool_errors_total\{tool_set="EchoApi",code="cancelled"\} 1$/m.test(await host.metrics());
      const before = upstream.requests.length;
      call('slow', { item_id: 'slow' });
      await expect.poll(() => upstream.requests.length, { timeout: 5000 }).toBe(before + 1);
      io.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'slow', _meta: envelope },
      });
      await expect.poll(cancelled, { timeout: 5000 }).toBe(true);
      call('after', { item_id: 'after' });
      await io.answer('after');
      expect(io.answers.find((m) => m.id === 'slow')).toBeUndefined();

      // The connection is 2026-07-28 now: a late initialize gets the SDK entry's refusal.
      io.send({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      });
      expect((await io.answer('init')).error?.code).toBeLessThan(0);
      // A line that is not JSON is answered with JSON-RPC's parse error, and serving goes on.
      io.raw('{"jsonrpc":"2.0","id":"torn",\n');
      expect((await io.answer(null)).error?.code).toBe(-32700);
      call('last', { item_id: 'last' });
      expect((await io.answer('last')).result?._meta?.['toolhost/status']).toBe(200);
    } finally {
      release();
      await io.close();
      await host.close();
      await upstream.close();
    }
  });

  it('answers a bad envelope as the SDK entry does, then serves the corrected request', async () => {
    const host = await createHost({}, { plugins: [inlinePlugin('ItemApi', [getItem])] });
    const io = await stdioPair(host);
    try {
      const malformed = { ...envelope, 'io.modelcontextprotocol/clientCapabilities': 'none' };
      io.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: malformed } });
      expect((await io.answer(1)).error?.code).toBe(-32602);
      io.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope } });
      expect((await io.answer(2)).result?.tools).toHaveLength(1);
      io.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope } });
      expect((await io.answer(3)).result?.tools).toHaveLength(1);
    } finally {
      await io.close();
      await host.close();
    }
  });

  it.each(['session', 'modern'] as const)(
    'aborts a call still running when stdin ends (%s era), as the SDK entry does',
    async (era) => {
      const { responder, release } = heldAnswers({ status: 200, body: {} });
      const upstream = await startRecordingUpstream(responder);
      const host = await createHost(
        { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
        { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
      );
      await host.metrics();
      const io = await stdioPair(host);
      try {
        const meta = era === 'modern' ? { _meta: envelope } : {};
        if (era === 'session') io.send(SESSION_INITIALIZE);
        io.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: meta });
        await io.answer('list');
        io.send({
          jsonrpc: '2.0',
          id: 'slow',
          method: 'tools/call',
          params: { name: 'EchoApi_GetItem', arguments: { item_id: 'slow' }, ...meta },
        });
        await expect.poll(() => upstream.requests.length, { timeout: 5000 }).toBe(1);
        io.end();
        await expect
          .poll(
            async () =>
              /toolhost_tool_errors_total\{tool_set="EchoApi",code="cancelled"\} 1$/m.test(
                await host.metrics(),
              ),
            { timeout: 5000 },
          )
          .toBe(true);
      } finally {
        release();
        await io.close();
        await host.close();
        await upstream.close();
      }
    },
  );

  it.each(['session', 'modern'] as const)(
    'answers tools/call whose arguments are null as invalid params naming them (%s era), sending nothing',
    async (era) => {
      const upstream = await startRecordingUpstream();
      const host = await createHost(
        { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
        { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
      );
      const io = await stdioPair(host);
      try {
        const meta = era === 'modern' ? { _meta: envelope } : {};
        if (era === 'session') io.send(SESSION_INITIALIZE);
        io.send({
          jsonrpc: '2.0',
          id: 'null',
          method: 'tools/call',
          params: { name: 'EchoApi_GetItem', arguments: null, ...meta },
        });
        expect((await io.answer('null')).error).toEqual({
          code: -32602,
          message: 'Invalid params for tools/call: params.arguments: expected object, received null.',
        });
        expect(upstream.requests).toEqual([]);
      } finally {
        await io.close();
        await host.close();
        await upstream.close();
      }
    },
  );

  it('holds the answers of at most 128 requests for a client that never reads them', async () => {
    const upstream = await startRecordingUpstream(() => ({ body: { text: 'x'.repeat(70_000) } }));
    const host = await createHost(
      { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
      { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
    );
    const stdin = new PassThrough();
    // A pipe its reader left: it takes 64 KiB, then nothing more.
    let taken = 0;
    const stdout = new Writable({
      highWaterMark: 2 ** 16,
      write(chunk: Buffer, _encoding, done) {
        taken += chunk.length;
        if (taken < 2 ** 16) done();
      },
    });
    const served = await serveStdio(host, {}, stdin, stdout);
    const send = (m: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    try {
      send(SESSION_INITIALIZE);
      send({ method: 'notifications/initialized' });
      await expect.poll(() => taken).toBeGreaterThan(0);
      // 400 calls of answers of 70 kB each: 28 MB, were each one held.
      for (let id = 1; id <= 400; id += 1)
        send({ id, method: 'tools/call', params: { name: 'EchoApi_GetItem', arguments: { item_id: 'i' } } });
      await expect.poll(() => upstream.requests.length, { timeout: 20_000 }).toBe(128);
      await new Promise((r) => setTimeout(r, 500));
      expect(upstream.requests.length).toBe(128);
      expect(stdout.writableLength).toBeLessThan(128 * 75_000);
    } finally {
      stdin.destroy();
      await served.close();
      await host.close();
      await upstream.close();
    }
  });
});
