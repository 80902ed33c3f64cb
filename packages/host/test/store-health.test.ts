import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import { type RedisCluster, type RedisServer, startRedisCluster, startRedisServer } from './redis-server.js';
import { type HttpReplica, type ServedHttpHost, serveHttpHost } from './served-http-host.js';

// What an operator sees of a shared store that fails without closing its connections: a
// frozen Redis (SIGSTOP: connected, answering nothing), a Redis Cluster master that dies, the
// slot range it served left without a copy. /readyz, toolhost_shared_store_up and the log
// followed only the main connection, which stays "ready" through all of them.
const env = {
  TOOLHOST_TOKEN_KEY: 'token-encryption-key-for-store-health',
  ECHO_KEY: 'echo-static-key',
};
const config = (store: HostConfig['store']): HostConfig => ({
  plugins: ['toolhost-plugin-echo'],
  toolSets: { EchoApi: { baseUrl: 'http://127.0.0.1:9' } },
  store,
});

const hosts: ServedHttpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

/** /readyz's status and the gauge, polled until `want` or `ms` pass. */
async function seen(host: HttpReplica, want: 200 | 503, ms: number): Promise<[number, string]> {
  const base = new URL(host.url).origin;
  const deadline = Date.now() + ms;
  for (;;) {
    const ready = (await fetch(`${base}/readyz`)).status;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const gauge = /toolhost_shared_store_up (\d)/.exec(metrics)?.[1] ?? '?';
    if ((ready === want && gauge === (want === 200 ? '1' : '0')) || Date.now() > deadline)
      return [ready, gauge];
    await new Promise((r) => setTimeout(r, 100));
  }
}

const logged = (host: HttpReplica, msg: string) =>
  host
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; err?: string })
    .filter((l) => l.msg === msg);

describe('shared store health: a frozen Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    redis.resume();
    await redis.close();
  });

  it('turns /readyz 503, the gauge 0 and logs it within seconds of freezing, and back after', async () => {
    const host = await serveHttpHost(config({ redisUrl: redis.url, commandTimeoutMs: 5000 }), env);
    hosts.push(host);
    expect(await seen(host, 200, 5000)).toEqual([200, '1']);
    redis.pause();
    try {
      // Probed every second, each PING given 2 s: well before a call's 5 s command timeout.
      expect(await seen(host, 503, 6000)).toEqual([503, '0']);
      const lines = logged(host, 'shared store (Redis) unreachable');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.err).toMatch(/no answer in 2000 ms/);
    } finally {
      redis.resume();
    }
    expect(await seen(host, 200, 6000)).toEqual([200, '1']);
    expect(logged(host, 'shared store (Redis) reachable again')).toHaveLength(1);
  }, 60_000);
});

describe('shared store health: Redis Cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('turns /readyz 503 and the gauge 0 when a master dies and its slots have no copy, and logs which', async () => {
    const host = await serveHttpHost(config({ cluster: cluster.seeds }), env);
    hosts.push(host);
    expect(await seen(host, 200, 5000)).toEqual([200, '1']);
    const [, , victim] = cluster.nodes;
    await victim!.stop();
    expect(await seen(host, 503, 8000)).toEqual([503, '0']);
    const lines = logged(host, 'shared store (Redis) unreachable');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.map((l) => l.err).join(' ')).toMatch(
      new RegExp(`cluster (node 127.0.0.1:${victim!.port}|state)`),
    );
    await victim!.start();
    expect(await seen(host, 200, 15_000), host.logs()).toEqual([200, '1']);
  }, 60_000);
});
