import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { type Balancer, startBalancer } from './balancer.js';
import {
  closeClient,
  type RedisServer,
  redisClient,
  type Sentinels,
  startRedisServer,
  startReplica,
  startSentinels,
} from './redis-server.js';
import { keysWithoutExpiry, perRequestState, watchSessions } from './replica-probe-support.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

// Two HTTP replicas that find their Redis through a Sentinel; the master dies mid-call.
let master: RedisServer;
let replica: RedisServer;
let sentinels: Sentinels;
let upstream: RecordingUpstream;
let balancer: Balancer;
const started: ServedHttpHost[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  master = await startRedisServer();
  replica = await startReplica(master);
  sentinels = await startSentinels(master.port, 1);
  upstream = await startRecordingUpstream();
  balancer = await startBalancer();
}, 60_000);
afterAll(async () => {
  await balancer?.close();
  await sentinels?.close();
  await replica?.close();
  await master?.close();
  await upstream?.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(started.splice(0).map((r) => r.close()));
});
watchSessions();

const origin = (r: ServedHttpHost) => new URL(r.url).origin;

describe('replica probe: a Sentinel failover mid-call', () => {
  it('stops the call on A when its cancellation lands on B during the failover, once a master is promoted', async () => {
    const config: HostConfig = {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      http: { publicUrl: balancer.url },
      store: { redisUrl: 'redis://unused.invalid:6379', sentinels: sentinels.nodes, replicaAcks: 0 },
    };
    const env = {
      TOOLHOST_TOKEN_KEY: 'token-key-for-sentinel-probe',
      TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
      ECHO_AUTH_TOKEN: 'static-token',
    };
    const [a, b] = [await serveHttpHost(config, env), await serveHttpHost(config, env)];
    started.push(a, b);
    balancer.targets = [origin(a), origin(b)];
    let target = origin(a);
    balancer.pick = () => target;
    upstream.respond((r) => ({ body: { path: r.path }, delayMs: r.path === '/items/slow' ? 30_000 : 0 }));
    const client = new Client({ name: 'sentinel-probe', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    clients.push(client);
    target = origin(b);
    await client.ping();
    target = origin(a);
    const cancel = new AbortController();
    const call = client
      .callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'slow' } }, { signal: cancel.signal })
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await master.stop();
    // Cancelled on B while the Sentinel has no master to name yet: B cannot relay it now.
    target = origin(b);
    cancel.abort();
    await call;
    await vi.waitFor(
      () => expect(balancer.forwarded.at(-1)).toMatchObject({ target: origin(b), status: 202 }),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    expect(upstream.requests[0]!.aborted).toBe(false);
    // Relayed once the promoted replica answers: A's call stops.
    await vi.waitFor(() => expect(upstream.requests[0]!.aborted).toBe(true), {
      timeout: 20_000,
      interval: 50,
    });
    await vi.waitFor(() => expect(perRequestState()).toEqual({ unanswered: 0, handlers: 0, awaited: 0 }), {
      timeout: 5000,
      interval: 50,
    });
    const promoted: Redis = redisClient(replica.url);
    try {
      expect(await keysWithoutExpiry(promoted)).toEqual([]);
    } finally {
      await closeClient(promoted);
      await master.start();
    }
  }, 60_000);
});
