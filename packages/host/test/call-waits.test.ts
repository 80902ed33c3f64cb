import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { MemoryTokenStore } from '@toolhost/credentials';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import {
  echoAuthProviders,
  type FakeOAuthServer,
  fakeClient,
  startFakeOAuthServer,
  storeAuthorized,
} from './fake-oauth-server.js';
import { capturedLogger, fixtureApp, inlinePlugin } from './support.js';

// One wait, told once to each who should hear of it: a 429 whose Retry-After (2 s) the call
// waits out gives the client one progress sequence (its token, growing, the total it waits)
// and one log notification, and the host's log one `call waited` line, on either protocol era.
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
const MODERN = '2026-07-28';

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
const log = capturedLogger('info');

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { toolSets: { Limited: { baseUrl: upstream.url } } },
    { plugins: [limited], env: {}, logger: log.logger },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
});
beforeEach(() => {
  log.clear();
  let answered = 0;
  upstream.respond(() =>
    answered++ === 0
      ? { status: 429, headers: { 'retry-after': '2' }, body: { error: 'slow down' } }
      : { status: 200, body: { ok: true } },
  );
});

interface ProgressParams {
  progressToken: string;
  progress: number;
  total?: number;
  message?: string;
}

interface LogParams {
  level: string;
  data: { kind: string; tool: string; message: string };
}

/** The `call waited` lines written since the test began, once the log has been flushed. */
async function waitLines(): Promise<Record<string, unknown>[]> {
  await new Promise((r) => setTimeout(r, 50));
  return log
    .lines()
    .split('\n')
    .filter((l) => l.includes('call waited'))
    .map((l) => JSON.parse(l));
}

/** One progress sequence: a single token, progress that only grows, the wait's length as total. */
function expectOneSequence(progress: Omit<ProgressParams, 'progressToken'>[]) {
  expect(progress.length).toBeGreaterThanOrEqual(1);
  for (let i = 1; i < progress.length; i++)
    expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
  expect(progress.every((p) => p.total === 2)).toBe(true);
  expect(progress[0]!.message).toMatch(/429/);
}

function expectOneLogNotification(logs: LogParams[]) {
  expect(logs).toHaveLength(1);
  expect(logs[0]).toMatchObject({ level: 'warning', data: { kind: 'retry_after', tool: 'Limited.Get' } });
  expect(logs[0]!.data.message).toMatch(
    /^Limited answered 429 \(too many requests\); retrying after the 2000 ms/,
  );
}

async function expectOneLogLine() {
  const lines = await waitLines();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ tool: 'Limited.Get', wait: 'retry_after' });
}

describe('a 429 wait on a session (initialize, logging/setLevel)', () => {
  it('sends one progress sequence and one log notification, and writes one log line', async () => {
    const client = new V1Client({ name: 'waits', version: '0' });
    const logs: LogParams[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params as unknown as LogParams);
    });
    await client.connect(new V1HttpTransport(new URL(server.url)));
    try {
      await client.setLoggingLevel('debug');
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'Limited_Get', arguments: {} }, CallToolResultSchema, {
        onprogress: (p) => progress.push(p),
      });
      expect(result.isError).toBeFalsy();
      expect(upstream.requests.slice(-2).map((r) => r.path)).toEqual(['/things', '/things']);
      expectOneSequence(progress);
      expectOneLogNotification(logs);
      await expectOneLogLine();
    } finally {
      await client.close();
    }
  });

  it('answers the call whatever an embedder’s wait observer throws', async () => {
    const before = upstream.requests.length;
    const broken = await host.callTool(
      'Limited.Get',
      {},
      {
        onWait: () => {
          throw new Error('observer broke as the wait started');
        },
      },
    );
    expect(broken).toMatchObject({ ok: true, status: 200 });
    let answered = 0;
    upstream.respond(() =>
      answered++ === 0
        ? { status: 429, headers: { 'retry-after': '1' }, body: { error: 'slow down' } }
        : { status: 200, body: { ok: true } },
    );
    const brokenAtEnd = await host.callTool(
      'Limited.Get',
      {},
      {
        onWait: () => () => {
          throw new Error('observer broke as the wait ended');
        },
      },
    );
    expect(brokenAtEnd).toMatchObject({ ok: true, status: 200 });
    // Each call waited out its 429 and sent its retry.
    expect(upstream.requests.length - before).toBe(4);
  });

  it('logs the wait without sending progress to a client that sent no progress token', async () => {
    const client = new V1Client({ name: 'waits', version: '0' });
    const notified: { method?: string }[] = [];
    client.fallbackNotificationHandler = async (n) => {
      notified.push(n);
    };
    await client.connect(new V1HttpTransport(new URL(server.url)));
    try {
      const result = await client.callTool({ name: 'Limited_Get', arguments: {} });
      expect(result.isError).toBeFalsy();
      // Progress needs the client's token; the log line is written in any case.
      expect(notified.filter((n) => n.method === 'notifications/progress')).toEqual([]);
      await expectOneLogLine();
    } finally {
      await client.close();
    }
  });
});

/** A 2026-07-28 tools/call by hand, asking for progress and for log notifications at `debug`; every message answered. */
async function modernCall(url: string, name: string, args: Record<string, unknown>, progressToken: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          progressToken,
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/logLevel': 'debug',
        },
      },
    }),
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const messages = (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map(
      (l) => JSON.parse(l.slice(5)) as { method?: string; params?: unknown; result?: { isError?: boolean } },
    );
  return {
    result: messages.at(-1)!.result!,
    progress: messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => m.params as ProgressParams),
    logs: messages.filter((m) => m.method === 'notifications/message').map((m) => m.params as LogParams),
  };
}

describe('a 429 wait on MCP 2026-07-28 (stateless, per-request _meta)', () => {
  it('sends one progress sequence and one log notification on the request stream, and writes one log line', async () => {
    const { result, progress, logs } = await modernCall(server.url, 'Limited_Get', {}, 'wait-1');
    expect(result.isError).toBeFalsy();
    expectOneSequence(progress);
    expect(progress.every((p) => p.progressToken === 'wait-1')).toBe(true);
    expectOneLogNotification(logs);
    await expectOneLogLine();
  });
});

describe("a wait for the access token's refresh (OAuth provider)", () => {
  let oauth: FakeOAuthServer;
  let echoUpstream: RecordingUpstream;
  let oauthHost: Host;
  let oauthServer: HttpServerHandle;

  beforeAll(async () => {
    oauth = await startFakeOAuthServer();
    echoUpstream = await startRecordingUpstream();
    const tokens = new MemoryTokenStore();
    oauthHost = await createHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: echoUpstream.url } },
        auth: {
          providers: echoAuthProviders(oauth, { redirectUri: 'http://127.0.0.1:9/oauth/callback/echo-auth' }),
        },
      },
      {
        configDir: fixtureApp,
        env: { ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret },
        tokenStore: tokens,
        logger: log.logger,
      },
    );
    await storeAuthorized(oauth, tokens, oauthHost.config.defaultUserId, Date.now() - 1000);
    // The token endpoint takes its time: the call waits on the refresh for over a second.
    oauth.beforeAnswer = (grant) =>
      grant === 'refresh_token' ? new Promise((r) => setTimeout(r, 1500)) : Promise.resolve();
    oauthServer = await serveHttp(oauthHost, { port: 0 });
  });
  afterAll(async () => {
    await oauthServer?.close();
    await oauthHost?.close();
    await echoUpstream?.close();
    await oauth?.close();
  });

  it('sends progress and one log notification while the call waits, and writes one log line', async () => {
    const { result, progress, logs } = await modernCall(
      oauthServer.url,
      'EchoApi_GetItem',
      { item_id: 'i1' },
      'refresh-1',
    );
    expect(result.isError).toBeFalsy();
    expect(oauth.grants.map((g) => g.grant_type)).toEqual(['refresh_token']);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      level: 'info',
      data: { kind: 'token_refresh', tool: 'EchoApi.GetItem' },
    });
    expect(logs[0]!.data.message).toMatch(/^Waited \d+ ms for EchoApi's access token to be refreshed\.$/);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.every((p) => p.progressToken === 'refresh-1' && p.total === undefined)).toBe(true);
    expect(progress[0]!.message).toBe("Waiting for EchoApi's access token to be refreshed.");
    const lines = await waitLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ tool: 'EchoApi.GetItem', wait: 'token_refresh' });
    // A lower bound (the token endpoint holds its answer 1.5 s): load only makes the wait longer.
    expect(lines[0]!.ms).toBeGreaterThanOrEqual(1000);
  });
});
