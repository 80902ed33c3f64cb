import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { type Balancer, startBalancer } from './balancer.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { type HttpHostProcess, spawnHttpHost } from './support.js';

// The host behind what runs in front of replicas: a balancer that pools connections, an
// orchestrator's SIGTERM, a scraper that addresses each pod by its own address.

const ALICE = 'alice-access-token-0123456789';
const METRICS_TOKEN = 'metrics-token-0123456789';
let upstream: RecordingUpstream | undefined;
let hostProcess: HttpHostProcess | undefined;
let served: ServedHttpHost | undefined;
let balancer: Balancer | undefined;
afterEach(async () => {
  hostProcess?.child.kill('SIGKILL');
  await hostProcess?.exited;
  await served?.close();
  await balancer?.close();
  await upstream?.close();
  [hostProcess, served, balancer, upstream] = [undefined, undefined, undefined, undefined];
});

const echoConfig = (extra: HostConfig): HostConfig => ({
  plugins: ['toolhost-plugin-echo'],
  toolSets: { EchoApi: { baseUrl: upstream!.url } },
  ...extra,
});

/** `toolhost serve --http` as a process: for what its signals and its start-up do. */
const echoHost = async (extra: HostConfig = {}) => {
  upstream = await startRecordingUpstream();
  return spawnHttpHost(echoConfig(extra), { ECHO_AUTH_TOKEN: 'tok' });
};

/** The same host served in this process: for what its HTTP server does once it listens. */
const echoServed = async (extra: HostConfig = {}) => {
  upstream = await startRecordingUpstream();
  return serveHttpHost(echoConfig(extra), { ECHO_AUTH_TOKEN: 'tok' });
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'edge', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('behind a balancer that pools connections', () => {
  it('keeps an idle connection past Node’s 5 s default, so the balancer, not the host, lets it go', async () => {
    served = await echoServed();
    balancer = await startBalancer({ pool: { idleSeconds: 60 } });
    const origin = new URL(served.url).origin;
    balancer.targets = [origin];
    expect((await fetch(`${balancer.url}/healthz`)).status).toBe(200);
    // Idle longer than Node's default keep-alive (5 s, closed near 6 s), well inside the
    // balancer's 60 s: a host that closes first races the balancer's next request (a 502).
    await sleep(7000);
    expect((await fetch(`${balancer.url}/healthz`)).status).toBe(200);
    expect(balancer.pool!.closedByTarget).toEqual([]);
    expect(balancer.forwarded.map((f) => f.reused)).toEqual([false, true]);
  }, 60_000);

  it('keeps idle connections as long as http.keepAliveSeconds says, and closes them then', async () => {
    served = await echoServed({ http: { keepAliveSeconds: 1 } });
    balancer = await startBalancer({ pool: { idleSeconds: 60 } });
    balancer.targets = [new URL(served.url).origin];
    expect((await fetch(`${balancer.url}/healthz`)).status).toBe(200);
    // Closed then, not before: at least 1 s idle (less 100 ms of timer rounding; load only makes
    // it later), and within 2.5 s (1.5 s for a loaded machine to run the close).
    await sleep(2500);
    expect(balancer.pool!.closedByTarget).toHaveLength(1);
    expect(balancer.pool!.closedByTarget[0]!.idleMs).toBeGreaterThanOrEqual(900);
  }, 60_000);

  it('refuses a headers timeout not above the keep-alive, naming both settings', async () => {
    await expect(echoHost({ http: { keepAliveSeconds: 90, headersTimeoutSeconds: 60 } })).rejects.toThrow(
      /http\.headersTimeoutSeconds \(60\) must be above http\.keepAliveSeconds \(90\)/,
    );
  });
});

describe('the test balancer itself, as clients and targets meet it', () => {
  /** A target that keeps idle connections 75 s, as the host does, and counts those it was opened. */
  async function keepingTarget() {
    const target = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
    target.keepAliveTimeout = 75_000;
    let connections = 0;
    target.on('connection', () => (connections += 1));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    return { url, connections: () => connections, close: () => target.close(), server: target };
  }

  it("tells its clients its own keep-alive, not its target's", async () => {
    const target = await keepingTarget();
    balancer = await startBalancer();
    balancer.targets = [target.url];
    const res = await fetch(`${balancer.url}/mcp`, { method: 'POST', body: '{}' });
    await res.text();
    // Passed on, the target's 75 s had fetch hold a connection the balancer closes at 6 s (Node's
    // 5 s and its 1 s margin), and a request sent as it closed was reset (ECONNRESET).
    expect(res.headers.get('keep-alive')).toBe('timeout=5');
    target.server.closeAllConnections();
    target.close();
  });

  it('opens a connection to its target for each request unless started with a pool', async () => {
    const target = await keepingTarget();
    balancer = await startBalancer();
    balancer.targets = [target.url];
    for (let i = 0; i < 2; i += 1) await (await fetch(`${balancer.url}/healthz`)).text();
    // Not Node's global agent, which keeps them: a request on one a stopping replica was closing
    // is cut off (a 502), where a new connection is refused and goes to the next replica.
    expect(target.connections()).toBe(2);
    target.server.closeAllConnections();
    target.close();
  });
});

describe('the drain delay (http.drainDelaySeconds) after SIGTERM', () => {
  it('answers /readyz 503 at once while still serving MCP requests for the delay, then stops', async () => {
    // 10 s: the calls below must land inside the delay, and on a loaded 2-core machine a new
    // session and two calls took over 6 s.
    hostProcess = await echoHost({ http: { drainDelaySeconds: 10 } });
    const base = new URL(hostProcess.url).origin;
    const before = await connect(hostProcess.url);
    const told = Date.now();
    hostProcess.child.kill('SIGTERM');
    let ready = 200;
    while (ready === 200 && Date.now() - told < 1500) ready = (await fetch(`${base}/readyz`)).status;
    expect(ready).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(503);
    // Requests that reach it before the balancer noticed: a session opened now, and a call on
    // one opened before, both answered.
    const during = await connect(hostProcess.url);
    const sent = Date.now();
    const calls = await Promise.all(
      [before, during].map((c) => c.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'i1' } })),
    );
    expect(calls.map((c) => c.isError ?? false)).toEqual([false, false]);
    // They reached it inside the delay: without one, both were refused (503) from the SIGTERM.
    // The delay is the margin: the calls take a second or less on an idle machine. What the delay
    // promises is that a request arriving within it is answered, so its arrival is what is timed;
    // a call sent at 9.9 s may finish after 10 s on a loaded machine, answered as it must be.
    expect(sent - told).toBeLessThan(10_000);
    expect(await hostProcess.exited).toBe(0);
    // It waited the delay before it stopped.
    expect(Date.now() - told).toBeGreaterThanOrEqual(10_000);
    await Promise.all([before, during].map((c) => c.close().catch(() => {})));
  }, 60_000);

  it('stops at once on SIGINT (a person at a terminal), whatever the delay', async () => {
    hostProcess = await echoHost({ http: { drainDelaySeconds: 30 } });
    const told = Date.now();
    hostProcess.child.kill('SIGINT');
    expect(await hostProcess.exited).toBe(0);
    // At once: far inside the 30 s delay it skips (10 s leaves a loaded machine its exit).
    expect(Date.now() - told).toBeLessThan(10_000);
  }, 60_000);
});

/** A request with `host` as its Host header, as a scraper addressing the pod sends. */
function asAddressed(url: string, host: string, authorization?: string) {
  const { port, pathname } = new URL(url);
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: pathname,
        method: pathname === '/mcp' ? 'POST' : 'GET',
        headers: {
          host,
          ...(authorization ? { authorization } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(
      pathname === '/mcp'
        ? JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'x', version: '0' },
            },
          })
        : undefined,
    );
  });
}

describe('scraping /metrics per replica (--host 0.0.0.0 with http.publicUrl)', () => {
  it("answers /metrics by the pod's own address with the metrics token, and keeps /mcp behind the Host guard", async () => {
    upstream = await startRecordingUpstream();
    hostProcess = await spawnHttpHost(
      {
        plugins: ['toolhost-plugin-echo'],
        toolSets: { EchoApi: { baseUrl: upstream.url } },
        http: { host: '0.0.0.0', publicUrl: 'https://tools.example.com' },
      },
      {
        ECHO_AUTH_TOKEN: 'tok',
        TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
        TOOLHOST_METRICS_TOKEN: METRICS_TOKEN,
      },
    );
    const origin = new URL(hostProcess.url).origin;
    const pod = `10.0.0.5:${new URL(origin).port}`;
    expect(await asAddressed(`${origin}/metrics`, pod, `Bearer ${METRICS_TOKEN}`)).toBe(200);
    expect(await asAddressed(`${origin}/metrics`, pod)).toBe(401);
    expect(await asAddressed(`${origin}/metrics`, pod, 'Bearer not-the-metrics-token-000')).toBe(401);
    // A user who is not an operator reads no metrics, by any address.
    expect(await asAddressed(`${origin}/metrics`, pod, `Bearer ${ALICE}`)).toBe(403);
    // DNS rebinding: a page on another name reaches MCP, OAuth and /connections no more than before.
    expect(await asAddressed(`${origin}/mcp`, pod, `Bearer ${ALICE}`)).toBe(403);
    expect(
      await asAddressed(`${origin}/mcp`, `evil.example:${new URL(origin).port}`, `Bearer ${ALICE}`),
    ).toBe(403);
    expect(await asAddressed(`${origin}/connections`, pod, `Bearer ${ALICE}`)).toBe(403);
    // By the public name, MCP is served.
    expect(await asAddressed(`${origin}/mcp`, 'tools.example.com', `Bearer ${ALICE}`)).toBe(200);
  }, 60_000);

  it('keeps /metrics behind the Host guard where nothing protects it (loopback, no tokens)', async () => {
    served = await echoServed();
    const origin = new URL(served.url).origin;
    const port = new URL(origin).port;
    expect(await asAddressed(`${origin}/metrics`, `evil.example:${port}`)).toBe(403);
    expect(await asAddressed(`${origin}/metrics`, `127.0.0.1:${port}`)).toBe(200);
  }, 60_000);
});
