import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { inlinePlugin } from './support.js';

// A call's waits and retries reach the client as log notifications of its request, at or above
// the level the client asked for: per request in `_meta` on 2026-07-28, per session with
// `logging/setLevel` before it. Each item whose id ends in `-flaky` answers 503 once, so its
// call is retried, and the retry waits for the tool set's pacing (2 a second: slow enough that
// the first attempt and its backoff end before the retry's slot, even on a busy machine).
const pacedPlugin = inlinePlugin(
  'Paced',
  [
    {
      name: 'GetItem',
      description: 'Gets an item.',
      method: 'GET',
      path: '/items/{item}',
      auth: { kind: 'none' },
      hints: { readOnly: true },
      params: [
        {
          name: 'item_id',
          in: 'path',
          apiName: 'item',
          required: true,
          schema: { type: 'string' },
          description: 'Item.',
        },
      ],
    },
  ],
  { pacing: { per: 'connection', requestsPerSecond: 2 } },
);
const MODERN = '2026-07-28';
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
const failed = new Set<string>();

beforeAll(async () => {
  upstream = await startRecordingUpstream(async (req) => {
    if (req.path.endsWith('-flaky') && !failed.has(req.path)) {
      failed.add(req.path);
      return { status: 503, body: { message: 'busy' } };
    }
    return { status: 200, body: { path: req.path } };
  });
  host = await createHost(
    { toolSets: { Paced: { baseUrl: upstream.url } }, engine: { retry: { baseDelayMs: 1, maxDelayMs: 2 } } },
    { plugins: [pacedPlugin], env: {} },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await upstream.close();
});

interface Message {
  method?: string;
  params?: { level: string; logger?: string; data: { message: string; kind: string; tool: string } };
  result?: { isError?: boolean; content: { text: string }[] };
}

/** A 2026-07-28 tools/call by hand, with `logLevel` in its `_meta` when given; every message answered. */
async function modernCall(itemId: string, logLevel?: string): Promise<Message[]> {
  const params = {
    name: 'Paced_GetItem',
    arguments: { item_id: itemId },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
      ...(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}),
    },
  };
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'Paced_GetItem',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  });
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => JSON.parse(l.slice(5)));
}

const logs = (messages: Message[]) =>
  messages.filter((m) => m.method === 'notifications/message').map((m) => m.params!);

describe('log notifications during a call on MCP 2026-07-28 (per-request level)', () => {
  it('sends the retry (warning) and the pacing wait (info) at level info, before the answer', async () => {
    const messages = await modernCall('a-flaky', 'info');
    expect(messages.at(-1)!.result!.content[0]!.text).toBe(JSON.stringify({ path: '/items/a-flaky' }));
    const sent = logs(messages);
    expect(sent.map((l) => [l.level, l.data.kind])).toEqual(
      expect.arrayContaining([
        ['warning', 'retry'],
        ['info', 'pacing'],
      ]),
    );
    const retry = sent.find((l) => l.data.kind === 'retry')!;
    expect(retry.logger).toBe('toolhost');
    expect(retry.data).toMatchObject({ tool: 'Paced.GetItem', status: 503, attempt: 2, maxAttempts: 3 });
    expect(retry.data.message).toMatch(/^Paced answered 503; retrying in \d+ ms \(attempt 2 of 3\)\.$/);
  });

  it('sends only what is at or above the level asked for: warning keeps the retry, drops the wait', async () => {
    const sent = logs(await modernCall('b-flaky', 'warning'));
    expect(sent.map((l) => l.data.kind)).toEqual(['retry']);
  });

  it('sends none below error, and none at all when the request names no level', async () => {
    expect(logs(await modernCall('c-flaky', 'error'))).toEqual([]);
    const plain = await modernCall('d-flaky');
    expect(logs(plain)).toEqual([]);
    expect(plain[0]!.result!.content[0]!.text).toBe(JSON.stringify({ path: '/items/d-flaky' }));
  });
});

describe('log notifications during a call on a session (logging/setLevel)', () => {
  it('declares logging and honours the level the session set', async () => {
    const client = new V1Client({ name: 'v1', version: '0' });
    const received: { level: string; data: { kind: string } }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      received.push(n.params as (typeof received)[number]);
    });
    await client.connect(new V1HttpTransport(new URL(server.url)));
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      await client.setLoggingLevel('warning');
      const result = await client.callTool({ name: 'Paced_GetItem', arguments: { item_id: 'e-flaky' } });
      expect(result.isError).toBeFalsy();
      expect(received.map((l) => [l.level, l.data.kind])).toEqual([['warning', 'retry']]);
      received.length = 0;
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'Paced_GetItem', arguments: { item_id: 'f-flaky' } });
      expect(received.map((l) => [l.level, l.data.kind])).toEqual(
        expect.arrayContaining([
          ['warning', 'retry'],
          ['info', 'pacing'],
        ]),
      );
    } finally {
      await client.close();
    }
  });
});
