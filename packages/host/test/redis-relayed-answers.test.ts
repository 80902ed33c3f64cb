import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { closeClient, type RedisServer, redisClient, startRedisServer } from './redis-server.js';
import { fixtureApp } from './support.js';

// With replicas, a client's answers (JSON-RPC responses: a person's confirmation) are kept in
// Redis a minute beside the session, for a replica whose subscription was down as they came.
// Anything a client POSTs as answers was kept, up to 100 bodies a session of up to
// http.maxBodyBytes (4 MiB) each: 400 MiB of Redis a session, 6.4 GiB a user at the default
// caps, renewed each minute. What is kept for a session is bounded in bytes now, and an answer
// larger than that bound is refused.

let redis: RedisServer;
let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;

beforeAll(async () => {
  redis = await startRedisServer();
  upstream = await startRecordingUpstream();
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    {
      configDir: fixtureApp,
      env: {
        ECHO_AUTH_TOKEN: 'static-token-x',
        TOOLHOST_REDIS_URL: redis.url,
        TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-answers',
      },
    },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
  await redis?.close();
});

async function post(body: unknown, sessionId?: string): Promise<Response> {
  return fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe("a session's relayed answers in Redis", () => {
  it('are kept within a bound in bytes, however large the bodies a client posts', {
    timeout: 60_000,
  }, async () => {
    const admin = redisClient(redis.url);
    try {
      const opened = await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'big', version: '0' },
        },
      });
      const sessionId = opened.headers.get('mcp-session-id')!;
      await opened.text();
      await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
      const key = `toolhost:session:answers:${sessionId}`;
      const keptBytes = async () =>
        (await admin.lrange(key, 0, -1)).reduce((sum, relay) => sum + Buffer.byteLength(relay), 0);
      const answer = (id: number, size: number) => ({ jsonrpc: '2.0', id, result: { x: 'x'.repeat(size) } });
      // An answer of 1 MB (to a request the server never sent) is more than a relay may carry:
      // refused before anything is sent to Redis, which held each while it hung, for the client
      // to make smaller (a retry would fail again).
      const tooLarge = await post(answer(999, 1_000_000), sessionId);
      expect(tooLarge.status).toBe(413);
      expect(((await tooLarge.json()) as { error: { message: string } }).error.message).toMatch(
        /answers posted to this session take \d+ bytes; .* at most 262144 \(256 KiB\)/,
      );
      expect(await admin.exists(key)).toBe(0);
      // 20 answers of 200 KB each: all relayed, what is kept bounded in bytes.
      for (let i = 0; i < 20; i += 1)
        expect((await post(answer(1000 + i, 200_000), sessionId)).status).toBe(202);
      expect(await keptBytes()).toBeLessThanOrEqual(256 * 1024);
      // An answer of the size a person's confirmation has is kept as before, with its expiry.
      expect((await post(answer(2000, 200), sessionId)).status).toBe(202);
      const kept = await admin.lrange(key, 0, -1);
      expect(kept.at(-1)).toContain('"id":2000');
      expect(await admin.pttl(key)).toBeGreaterThan(0);
    } finally {
      await closeClient(admin);
    }
  });
});
