import { mkdtempSync } from 'node:fs';
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { answerByRevisionServer, revisionRequest } from '../src/http/revision-exchange.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { createMcpServer } from '../src/mcp/create-mcp-server.js';
import { FIRST_MODERN_REVISION, REVISION_SERVER_VERSIONS } from '../src/mcp/protocol-eras.js';
import { RevisionServers } from '../src/mcp/revision-servers.js';
import { classifyInboundRequest } from '../src/mcp/sdk.js';
import { prepareMcpServingState } from '../src/mcp/serving-state.js';
import { inlinePlugin, jsonLines } from './support.js';
import { getThingTool } from './write-support.js';

// MCP 2026-07-28 requests over HTTP are answered by one MCP server per revision, reused from
// request to request and answering many at once, not by a server built per request: whoever
// asks, each request is still answered in its own user's and client's name, under its own id,
// and a client leaving still cancels its request and no other.
const ALICE = 'alice-reuse-token-0123456789';
const BOB = 'bob-reuse-token-0123456789xxx';
const KEY = 'reuse-key';

const tools: ToolDeclaration[] = [getThingTool('REUSE_KEY')];

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
let auditFile: string;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  auditFile = join(mkdtempSync(join(tmpdir(), 'toolhost-reuse-')), 'audit.jsonl');
  host = await createHost(
    { toolSets: { ThingApi: { baseUrl: upstream.url } }, audit: { log: auditFile } },
    { plugins: [inlinePlugin('ThingApi', tools)], env: { REUSE_KEY: KEY } },
  );
  server = await serveHttp(host, { port: 0, accessTokens: new AccessTokens({ alice: ALICE, bob: BOB }) });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond((req) => ({
    status: 200,
    body: { path: req.path },
    ...(req.path.endsWith('/slow') ? { delayMs: 3000 } : {}),
    ...(req.path.includes('/wait-') ? { delayMs: 300 } : {}),
  }));
});

const auditLines = () => jsonLines(auditFile);

/** A 2026-07-28 tools/call by hand, as a v2 client sends it, for `token`'s user and `client`. */
function call(
  url: string,
  id: string,
  options: { token?: string; client?: string; signal?: AbortSignal; rpcId?: string | number } = {},
) {
  const name = 'ThingApi_GetThing';
  return fetch(url, {
    method: 'POST',
    ...(options.signal ? { signal: options.signal } : {}),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': FIRST_MODERN_REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.rpcId ?? id,
      method: 'tools/call',
      params: {
        name,
        arguments: { id },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': FIRST_MODERN_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: options.client ?? 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

describe('which requests a reused server takes', () => {
  const headers = {
    'content-type': 'application/json',
    'mcp-protocol-version': FIRST_MODERN_REVISION,
    'mcp-method': 'tools/call',
    'mcp-name': 'ThingApi_GetThing',
  };
  const req = { method: 'POST', headers } as unknown as import('node:http').IncomingMessage;
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': FIRST_MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const message = (change: (m: Record<string, unknown>) => void = () => {}) => {
    const m: Record<string, unknown> = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'ThingApi_GetThing', arguments: { id: 'x' }, _meta: { ...envelope } },
    };
    change(m);
    return m;
  };
  /** What the SDK's classification alone says of the message (a revision, or nothing). */
  const sdkSays = (m: unknown) => {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      body: m,
      protocolVersionHeader: headers['mcp-protocol-version'],
      mcpMethodHeader: headers['mcp-method'],
    });
    return route.kind === 'modern' && route.messageKind === 'request'
      ? route.classification.revision
      : undefined;
  };
  const meta = (m: Record<string, unknown>) => (m.params as { _meta: Record<string, unknown> })._meta;

  it("agrees with the SDK's classification for requests sharing an envelope already seen", () => {
    // The envelope's verdict is remembered from here on.
    expect(revisionRequest(req, message())?.revision).toBe(FIRST_MODERN_REVISION);
    const variants: Record<string, unknown>[] = [
      message((m) => (m.id = 'text-id')),
      message(
        (m) => ((m.params as Record<string, unknown>).arguments = { id: 'other', extra: [1, { a: null }] }),
      ),
      message((m) => (meta(m).traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')),
      message((m) => (meta(m).progressToken = 'p-1')),
      message((m) => (m.id = null)),
      message((m) => (m.id = 1.5)),
      message((m) => (m.jsonrpc = '1.0')),
      message((m) => (m.result = {})),
      message((m) => (meta(m).progressToken = { not: 'a token' })),
      message((m) => (meta(m)['io.modelcontextprotocol/logLevel'] = 'loudest')),
      message((m) => (meta(m)['io.modelcontextprotocol/clientCapabilities'] = 'none')),
      message((m) => delete meta(m)['io.modelcontextprotocol/clientInfo']),
      message((m) => (m.params = [])),
      message((m) => delete (m.params as Record<string, unknown>)._meta),
    ];
    for (const variant of variants) {
      const expected = sdkSays(variant);
      // Asked twice: the second answer may come from what the first remembered.
      expect(revisionRequest(req, variant)?.revision, JSON.stringify(variant)).toBe(expected);
      expect(revisionRequest(req, variant)?.revision, JSON.stringify(variant)).toBe(expected);
    }
    // The first four are ordinary requests, and so is one without the client's info (optional
    // in the envelope); the SDK's entry refuses the rest.
    expect(variants.map((v) => sdkSays(v) !== undefined)).toEqual([
      ...[true, true, true, true],
      ...[false, false, false, false, false, false, false],
      true,
      ...[false, false],
    ]);
  });
});

describe('2026-07-28 requests on reused servers', () => {
  it("answers two users' interleaved calls each in its own user's and client's name", async () => {
    const callers = [
      { token: ALICE, user: 'alice', client: 'alice-client' },
      { token: BOB, user: 'bob', client: 'bob-client' },
    ];
    const before = auditLines().length;
    // Several rounds of concurrent calls: servers freed by one round answer the other user next.
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => {
          const caller = callers[i % 2]!;
          return call(server.url, `${caller.user}-${round}-${i}`, caller).then(async (res) => ({
            caller,
            status: res.status,
            body: (await res.json()) as { result: { content: { text: string }[] } },
          }));
        }),
      );
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(JSON.parse(a.body.result.content[0]!.text).path).toMatch(
          new RegExp(`/things/${a.caller.user}-`),
        );
      }
    }
    const lines = auditLines().slice(before);
    expect(lines).toHaveLength(18);
    for (const line of lines) {
      expect(line).toMatchObject({ event: 'tool_call', tool: 'ThingApi.GetThing', outcome: 'ok' });
      expect(line.client).toBe(`${line.user}-client`);
    }
  });

  it('cancels the call of a client that leaves, and answers the next request', async () => {
    const leaving = new AbortController();
    const slow = call(server.url, 'slow', { token: ALICE, signal: leaving.signal }).catch((e: Error) => e);
    await expect.poll(() => upstream.requests.length).toBe(1);
    leaving.abort();
    expect(await slow).toBeInstanceOf(Error);
    // The upstream request is given up, not waited for.
    await expect.poll(() => upstream.requests[0]?.aborted, { timeout: 2000 }).toBe(true);
    const next = await call(server.url, 'next', { token: ALICE });
    expect(next.status).toBe(200);
  });
});

describe('RevisionServers', () => {
  let node: NodeServer;
  let url: string;
  let built = 0;
  let reused: RevisionServers;

  beforeAll(async () => {
    const mcpState = prepareMcpServingState(host);
    reused = new RevisionServers(() => {
      built += 1;
      return createMcpServer(host, mcpState, {
        userPerRequest: true,
        supportedProtocolVersions: REVISION_SERVER_VERSIONS,
      });
    });
    node = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const request = revisionRequest(req, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      if (!request) return void res.writeHead(400).end('not reusable');
      const authInfo = { token: '', clientId: 'carol', scopes: [] };
      await answerByRevisionServer(reused, res, request, {
        authInfo,
        classification: { era: 'modern', revision: request.revision },
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await reused.close();
    await new Promise((resolve) => node.close(resolve));
  });

  it('serves one request after another, and concurrent ones, with one server', async () => {
    built = 0;
    for (const id of ['a', 'b', 'c']) expect((await call(url, id)).status).toBe(200);
    // Answered slowly enough upstream to be in flight together.
    const concurrent = await Promise.all(['wait-d', 'wait-e', 'wait-f'].map((id) => call(url, id)));
    expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(built).toBe(1);
  });

  it('answers concurrent requests that carry the same id each with its own answer, under that id', async () => {
    // Two clients, each numbering its requests from 1.
    const answers = await Promise.all(
      ['wait-g', 'wait-h'].map(async (id) => {
        const res = await call(url, id, { rpcId: 1 });
        return { id, body: (await res.json()) as { id: unknown; result: { content: { text: string }[] } } };
      }),
    );
    for (const { id, body } of answers) {
      expect(body.id).toBe(1);
      expect(JSON.parse(body.result.content[0]!.text).path).toBe(`/things/${id}`);
    }
  });

  it('cancels the request of a client that leaves, and answers the other in flight with the same id', async () => {
    const leaving = new AbortController();
    const slow = call(url, 'slow', { rpcId: 5, signal: leaving.signal }).catch((e: Error) => e);
    await expect.poll(() => upstream.requests.length).toBe(1);
    const staying = call(url, 'wait-i', { rpcId: 5 });
    await expect.poll(() => upstream.requests.length).toBe(2);
    leaving.abort();
    expect(await slow).toBeInstanceOf(Error);
    await expect.poll(() => upstream.requests[0]?.aborted, { timeout: 2000 }).toBe(true);
    const stayed = await staying;
    expect(stayed.status).toBe(200);
    const body = (await stayed.json()) as { id: unknown; result: { content: { text: string }[] } };
    expect(body.id).toBe(5);
    expect(JSON.parse(body.result.content[0]!.text).path).toBe('/things/wait-i');
    expect(upstream.requests[1]?.aborted).toBeFalsy();
  });

  it('leaves to the SDK what it would not pass on as it is: a missing Mcp-Name, another method', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'mcp-protocol-version': FIRST_MODERN_REVISION,
        'mcp-method': 'tools/call',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'ThingApi_GetThing',
          arguments: { id: 'x' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': FIRST_MODERN_REVISION },
        },
      }),
    });
    expect(await res.text()).toBe('not reusable');
  });
});
