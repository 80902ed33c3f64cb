import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  heldAnswers,
  type RecordingUpstream,
  startRecordingUpstream,
} from '../../testing/src/recording-upstream.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { serveHttp } from '../src/http/serve-http.js';
import { fixtureApp, postInitialize } from './support.js';

let upstream: RecordingUpstream;
let host: Host;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'limits', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {},
    ),
  );
  return client;
}

describe('HTTP surface limits', () => {
  it('refuses to bind beyond loopback without access tokens', async () => {
    await expect(serveHttp(host, { bindAddress: '0.0.0.0', port: 0 })).rejects.toThrow(
      /Refusing to bind 0\.0\.0\.0 without access tokens/,
    );
  });

  it('evicts the least recently used idle session of a user at the cap, instead of refusing', async () => {
    const server = await serveHttp(host, {
      port: 0,
      maxSessionsPerUser: 2,
      accessTokens: new AccessTokens({ u1: 'user-one-token-123456' }),
    });
    const a = await connect(server.url, 'user-one-token-123456');
    const b = await connect(server.url, 'user-one-token-123456');
    await a.listTools(); // b is now the least recently used
    const c = await connect(server.url, 'user-one-token-123456');
    await expect(b.listTools()).rejects.toThrow(/Session not found|404/);
    expect((await a.listTools()).tools).toHaveLength(5); // three tools, and the two write-preview tools
    expect((await c.listTools()).tools).toHaveLength(5); // three tools, and the two write-preview tools
    await Promise.all([a, b, c].map((x) => x.close()));
    await server.close();
  });

  it('evicts in all at the host-wide cap, and refuses only when every session is busy', async () => {
    upstream.reset();
    // Held until the third session has been refused: a fixed delay could end first on a loaded machine.
    const held = heldAnswers();
    upstream.respond(held.responder);
    const server = await serveHttp(host, {
      port: 0,
      maxSessions: 2,
      accessTokens: new AccessTokens({ u1: 'user-one-token-123456', u2: 'user-two-token-123456' }),
    });
    const a = await connect(server.url, 'user-one-token-123456');
    const b = await connect(server.url, 'user-two-token-123456');
    const busy = [a, b].map((x) => x.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'x' } }));
    for (let i = 0; i < 500 && upstream.requests.length < 2; i += 1)
      await new Promise((r) => setTimeout(r, 20));
    await expect(connect(server.url, 'user-two-token-123456')).rejects.toThrow(/Too many open sessions/);
    held.release();
    await Promise.all(busy);
    const c = await connect(server.url, 'user-two-token-123456');
    await expect(a.listTools()).rejects.toThrow(/Session not found|404/);
    upstream.respond(() => ({ status: 200, body: { ok: true } }));
    await Promise.all([a, b, c].map((x) => x.close()));
    await server.close();
  });

  it('without access tokens, caps sessions per client, so one leaky client evicts only its own', async () => {
    const server = await serveHttp(host, { port: 0, maxSessionsPerUser: 2 });
    const named = async (name: string) => {
      const client = new Client({ name, version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      return client;
    };
    const agent = await named('agent');
    const leaky: Client[] = [];
    for (let i = 0; i < 5; i += 1) leaky.push(await named('conformance'));
    expect((await agent.listTools()).tools).toHaveLength(5); // three tools, and the two write-preview tools
    await expect(leaky[0]!.listTools()).rejects.toThrow(/Session not found|404/);
    expect((await leaky[4]!.listTools()).tools).toHaveLength(5); // three tools, and the two write-preview tools
    await Promise.all([agent, ...leaky].map((x) => x.close()));
    await server.close();
  });

  it('closes idle sessions', async () => {
    const server = await serveHttp(host, { port: 0, sessionIdleSeconds: 1 });
    const client = await connect(server.url);
    await client.listTools();
    await new Promise((r) => setTimeout(r, 1600));
    await expect(client.listTools()).rejects.toThrow(/Session not found|404/);
    await server.close();
  });

  it('answers 413 for an oversized request body', async () => {
    const server = await serveHttp(host, { port: 0, maxBodyBytes: 1024 });
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { pad: 'x'.repeat(4096) },
      }),
    });
    expect(res.status).toBe(413);
    await server.close();
  });

  it('refuses an initialize over 64 KiB (the session would keep it for its life), and opens none', async () => {
    const server = await serveHttp(host, { port: 0 });
    const initialize = (padding: number) =>
      postInitialize(server.url, { params: { clientInfo: { name: 'x'.repeat(padding), version: '1' } } });
    try {
      const refused = await initialize(70_000);
      expect(refused.status).toBe(413);
      expect(refused.headers.get('mcp-session-id')).toBeNull();
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /is 70\d{3} bytes; .* up to 65536 bytes/,
      );
      const opened = await initialize(60_000);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('mcp-session-id')).toBeTruthy();
    } finally {
      await server.close();
    }
  });

  it('opens no session for an initialize the server refuses, so a flood of them evicts no one', async () => {
    upstream.reset();
    const server = await serveHttp(host, {
      port: 0,
      maxSessionsPerUser: 2,
      accessTokens: new AccessTokens({ u1: 'user-one-token-123456' }),
    });
    const client = await connect(server.url, 'user-one-token-123456');
    const deep = JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`);
    try {
      for (const [params, message] of [
        [{ protocolVersion: 5 }, /params\.protocolVersion: expected string, received number/],
        [{ clientInfo: null }, /params\.clientInfo: expected object, received null/],
        [{ capabilities: deep }, /nests more than 100 levels deep/],
      ] as const) {
        for (let i = 0; i < 3; i += 1) {
          const refused = await postInitialize(server.url, { token: 'user-one-token-123456', params });
          expect(refused.status).toBe(200);
          expect(refused.headers.get('mcp-session-id')).toBeNull();
          const { error } = (await refused.json()) as { error: { code: number; message: string } };
          expect(error.code).toBe(-32602);
          expect(error.message).toMatch(message);
        }
      }
      // Nine refused at a cap of two: the client's own session was never made room for.
      expect((await client.listTools()).tools).toHaveLength(5); // three tools, and the two write-preview tools
      expect(upstream.requests).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('aborts the upstream request when the client cancels the call', async () => {
    upstream.reset();
    upstream.respond(() => ({ status: 200, body: { late: true }, delayMs: 3000 }));
    const server = await serveHttp(host, { port: 0 });
    const client = await connect(server.url);
    const ac = new AbortController();
    const call = client.callTool(
      { name: 'EchoApi_GetItem', arguments: { item_id: 'slow' } },
      {
        signal: ac.signal,
      },
    );
    // The first call also loads the HTTP client (kept off start-up), so wait for the request.
    for (let i = 0; i < 500 && upstream.requests.length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(upstream.requests).toHaveLength(1);
    ac.abort();
    await expect(call).rejects.toThrow();
    // The host saw the cancellation and dropped its upstream request long before the 3 s answer.
    for (let i = 0; i < 100 && !upstream.requests[0]!.aborted; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(upstream.requests[0]!.aborted).toBe(true);
    upstream.respond(() => ({ status: 200, body: { ok: true } }));
    const next = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'next' } });
    expect(next.isError).toBeFalsy();
    await client.close();
    await server.close();
  });
});
