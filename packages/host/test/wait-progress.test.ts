import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { createLogger } from '../src/logger.js';
import { createMcpServer, prepareMcpCatalog } from '../src/mcp/create-mcp-server.js';
import { fixtureApp, inlinePlugin } from './support.js';

// A call that waits (here the 2 s an upstream's 429 asked for) tells the client it is alive
// and why, when the client asked for progress, and says so in the log in any case.
const limited = inlinePlugin(
  'Limited',
  [
    {
      name: 'Get',
      description: 'Gets a thing.',
      method: 'GET',
      path: '/things',
      auth: { kind: 'none' },
      hints: { readOnly: true },
    },
  ],
  { retryOnRateLimit: { defaultWaitSeconds: 1, maxWaitSeconds: 5 } },
);

let upstream: RecordingUpstream;
let host: Host;
let client: Client;
let logText = '';

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const sink = new Writable({
    write(chunk, _enc, done) {
      logText += chunk.toString();
      done();
    },
  });
  host = await createHost(
    { toolSets: { Limited: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, plugins: [limited], env: {}, logger: createLogger('info', sink) },
  );
  const server = createMcpServer(host, prepareMcpCatalog(host));
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'progress-test', version: '0.0.0' });
  await server.connect(a);
  await client.connect(b);
});
afterAll(async () => {
  await client?.close();
  await host?.close();
  await upstream?.close();
});
beforeEach(() => {
  logText = '';
  let answered = 0;
  upstream.respond(() =>
    answered++ === 0
      ? { status: 429, headers: { 'retry-after': '2' }, body: { error: 'slow down' } }
      : { status: 200, body: { ok: true } },
  );
});

it('sends progress while a 429 Retry-After wait lasts, and logs the wait', async () => {
  const progress: Progress[] = [];
  const result = await client.callTool({ name: 'Limited_Get', arguments: {} }, CallToolResultSchema, {
    onprogress: (p) => progress.push(p),
  });
  expect(result.isError).toBeFalsy();
  expect(upstream.requests).toHaveLength(2);
  expect(progress.length).toBeGreaterThanOrEqual(1);
  expect(progress[0]!.message).toMatch(/429/);
  expect(progress[0]!.total).toBe(2);
  for (let i = 1; i < progress.length; i++)
    expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
  await new Promise((r) => setImmediate(r));
  const line = logText.split('\n').find((l) => l.includes('call waited'));
  expect(line).toBeDefined();
  expect(JSON.parse(line!)).toMatchObject({ tool: 'Limited.Get', wait: 'retry_after' });
});

it('logs the wait without sending progress to a client that sent no progress token', async () => {
  const notified: unknown[] = [];
  client.fallbackNotificationHandler = async (n) => {
    notified.push(n);
  };
  const result = await client.callTool({ name: 'Limited_Get', arguments: {} });
  expect(result.isError).toBeFalsy();
  // A log notification of the wait may come; progress needs the client's token.
  expect(notified.filter((n) => (n as { method?: string }).method === 'notifications/progress')).toEqual([]);
  expect(logText).toContain('call waited');
});
