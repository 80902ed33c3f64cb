import { PassThrough, Writable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  heldAnswers,
  type RecordingUpstream,
  startRecordingUpstream,
} from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import { serveStdio } from '../src/stdio/serve-stdio.js';
import { fixtureApp } from './support.js';

// A host configured for 150 upstream requests at once: a client may leave twice that
// unanswered (300), where a fixed 128 let one session use fewer than the setting allows.
const CONCURRENCY = 150;
const BOUND = 2 * CONCURRENCY;

let upstream: RecordingUpstream;
let host: Host;
/** Lets every call held at the upstream be answered. */
let release = () => {};

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      // Held calls wait longer than a loaded machine takes to send them all.
      engine: { maxConcurrentRequests: CONCURRENCY, timeoutMs: 120_000 },
    },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
});
afterAll(async () => {
  release();
  await host.close();
  await upstream.close();
});

/** Every call waits at the upstream until released. */
function holdCalls(): void {
  upstream.reset();
  const held = heldAnswers();
  release = held.release;
  upstream.respond(held.responder);
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'EchoApi_GetItem', arguments: { item_id: `i${id}` } },
});

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 3000 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
};

describe('requests a client may leave unanswered, with engine.maxConcurrentRequests at 150', () => {
  it('over HTTP: one session runs as many calls at once as the engine takes, and is refused only past twice that', async () => {
    holdCalls();
    const server = await serveHttp(host, { port: 0 });
    const client = new Client({ name: 'many', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    const post = (message: object) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': transport.protocolVersion!,
        },
        body: JSON.stringify(message),
      });
    try {
      // A call's headers go as it is taken (its answer follows): each of these is held.
      const taken = await Promise.all(Array.from({ length: BOUND }, (_, i) => post(call(i + 1))));
      expect(new Set(taken.map((r) => r.status))).toEqual(new Set([200]));
      await waitFor(() => upstream.requests.length >= CONCURRENCY);
      expect(upstream.requests).toHaveLength(CONCURRENCY);
      const refused = await post(call(BOUND + 1));
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({
        id: BOUND + 1,
        error: { code: -32000, message: expect.stringMatching(/more than 300 requests unanswered/) },
      });
      release();
      const answers = await Promise.all(taken.map(async (r) => (await r.json()) as { result?: unknown }));
      expect(answers.filter((a) => a.result !== undefined)).toHaveLength(BOUND);
      expect(upstream.requests).toHaveLength(BOUND);
    } finally {
      release();
      await client.close();
      await server.close();
    }
  }, 120_000);

  it('over stdio: the same bound', async () => {
    holdCalls();
    const stdin = new PassThrough();
    const answers: { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] = [];
    let partial = '';
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line) answers.push(JSON.parse(line));
        done();
      },
    });
    const served = await serveStdio(host, {}, stdin, stdout);
    const send = (m: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    try {
      send({
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      });
      send({ method: 'notifications/initialized' });
      await waitFor(() => answers.some((a) => a.id === 'init'));
      for (let id = 1; id <= BOUND + 1; id += 1) send(call(id));
      await waitFor(() => upstream.requests.length >= CONCURRENCY && answers.length > 1);
      expect(upstream.requests).toHaveLength(CONCURRENCY);
      // Only the one past the bound is answered while the others are held.
      expect(answers.filter((a) => a.id !== 'init')).toEqual([
        {
          jsonrpc: '2.0',
          id: BOUND + 1,
          error: { code: -32000, message: expect.stringMatching(/more than 300 requests unanswered/) },
        },
      ]);
      release();
      await waitFor(() => answers.filter((a) => a.result !== undefined).length > BOUND);
      expect(answers.filter((a) => a.result !== undefined)).toHaveLength(BOUND + 1);
    } finally {
      release();
      stdin.destroy();
      await served.close();
    }
  }, 120_000);
});
