import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { type HttpHostProcess, postModernCall, spawnHttpHost } from './support.js';

let upstream: RecordingUpstream | undefined;
let hostProcess: HttpHostProcess | undefined;
afterEach(async () => {
  hostProcess?.child.kill('SIGKILL');
  await upstream?.close();
});

/** 50 calls over 5 sessions, each settled as its result, or the error that ended it, within a bound. */
async function fiftyCalls(url: string) {
  const clients = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const client = new Client({ name: 'shutdown', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    }),
  );
  const calls = clients.flatMap((client) =>
    Array.from({ length: 10 }, (_, i) =>
      client
        .callTool(
          { name: 'EchoApi_GetItem', arguments: { item_id: `i${i}` } },
          {
            timeout: 15_000,
          },
        )
        .then(
          (r) => (r.isError ? (r.structuredContent as { error: { code: string } }).error.code : 'ok'),
          (e: Error) => `failed: ${e.message}`,
        ),
    ),
  );
  return calls;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i += 1) await new Promise((r) => setTimeout(r, 20));
}

/** The echo fixture over HTTP, with room for all fifty calls at the upstream at once. */
const echoHost = (baseUrl: string, extra: HostConfig = {}) =>
  spawnHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl } },
      engine: { maxConcurrentRequestsPerUpstream: 64 },
      ...extra,
    },
    { ECHO_AUTH_TOKEN: 'tok', ECHO_KEY: 'key' },
  );

describe('HTTP shutdown', () => {
  it('answers every call in flight on SIGTERM', async () => {
    upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true }, delayMs: 600 }));
    hostProcess = await echoHost(upstream.url);
    const calls = await fiftyCalls(hostProcess.url);
    // All 50 at the upstream: in flight, not merely sent (calls arriving after SIGTERM are refused).
    await until(() => upstream!.requests.length === 50);
    hostProcess.child.kill('SIGTERM');
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o !== 'ok')).toEqual([]);
    expect(await hostProcess.exited).toBe(0);
  });

  it('answers cancelled for calls still running at the end of the grace period', async () => {
    upstream = await startRecordingUpstream(() => new Promise(() => {}));
    hostProcess = await echoHost(upstream.url, { shutdownGraceSeconds: 1 });
    const calls = await fiftyCalls(hostProcess.url);
    await until(() => upstream!.requests.length === 50);
    hostProcess.child.kill('SIGTERM');
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o !== 'cancelled')).toEqual([]);
    expect(await hostProcess.exited).toBe(0);
  });

  it('says of a write cancelled at the end of the grace period that it was sent, in both protocol eras', async () => {
    upstream = await startRecordingUpstream(() => new Promise(() => {}));
    hostProcess = await echoHost(upstream.url, { shutdownGraceSeconds: 1 });
    const client = new Client({ name: 'shutdown', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(hostProcess.url)));
    const args = { mode: 'execute', request_body: { name: 'n' } };
    const session = client.callTool({ name: 'EchoApi_CreateItem', arguments: args }, { timeout: 15_000 });
    const modern = postModernCall(hostProcess.url, { name: 'EchoApi_CreateItem', args });
    await until(() => upstream!.requests.length === 2);
    hostProcess.child.kill('SIGTERM');
    const answers = [
      (await session).structuredContent,
      ((await (await modern).json()) as { result: { structuredContent: unknown } }).result.structuredContent,
    ];
    for (const answer of answers)
      expect(answer).toMatchObject({
        error: { code: 'cancelled', message: expect.stringContaining('after its request was sent') },
      });
    expect(upstream.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(await hostProcess.exited).toBe(0);
  });

  it('answers 503 on /healthz and /readyz from the moment of SIGTERM, while its calls finish; /livez stays 200', async () => {
    upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true }, delayMs: 2000 }));
    hostProcess = await echoHost(upstream.url);
    const base = new URL(hostProcess.url).origin;
    const probe = async (path: string) => (await fetch(`${base}${path}`)).status;
    expect([await probe('/healthz'), await probe('/readyz'), await probe('/livez')]).toEqual([200, 200, 200]);
    const calls = await fiftyCalls(hostProcess.url);
    await until(() => upstream!.requests.length === 50);
    const told = Date.now();
    hostProcess.child.kill('SIGTERM');
    let health = 200;
    while (health === 200 && Date.now() - told < 1500) health = await probe('/healthz');
    expect(health).toBe(503);
    // Well before the calls in flight (2 s at the upstream) are answered: a host that waited
    // for them would answer 200 for 2 s; 1 s leaves a loaded machine its signal and probe.
    expect(Date.now() - told).toBeLessThan(1000);
    expect(await probe('/readyz')).toBe(503);
    expect(await probe('/livez')).toBe(200);
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o !== 'ok')).toEqual([]);
    expect(await hostProcess.exited).toBe(0);
  });

  it("answers a balancer's probe by the replica's address with --host 0.0.0.0 and http.publicUrl, and nothing else", async () => {
    upstream = await startRecordingUpstream();
    hostProcess = await spawnHttpHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: upstream.url } },
        http: { host: '0.0.0.0', publicUrl: 'https://tools.example.com' },
      },
      { ECHO_AUTH_TOKEN: 'tok', TOOLHOST_ACCESS_TOKENS: 'alice:alice-access-token-0123456789' },
    );
    const port = new URL(hostProcess.url).port;
    const asBalancer = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        // fetch cannot set Host: a raw request names the replica's address as a balancer does.
        const req = httpRequest(
          { host: '127.0.0.1', port, path, headers: { host: `10.0.0.5:${port}` } },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => {
              body += c.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    for (const path of ['/healthz', '/readyz', '/livez']) {
      const answer = await asBalancer(path);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ status: path === '/readyz' ? 'ready' : 'ok' });
    }
    expect((await asBalancer('/mcp')).status).toBe(403);
    expect((await asBalancer('/connections')).status).toBe(403);
  });
});
