import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import { RESULT_URI_PREFIX } from '../src/mcp/result-store.js';
import { keysWithoutExpiry } from './replica-probe-support.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import { admin, redis, TOKEN_KEY, upstream, useStandaloneRedis } from './standalone-redis-setup.js';
import { ALICE_ACCESS_TOKEN as ALICE } from './support.js';

useStandaloneRedis();

const started: ServedHttpHost[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(started.splice(0).map((r) => r.close()));
});

const big = { items: Array.from({ length: 2000 }, (_, i) => ({ id: `item-${i}`, secret: `s-${i}` })) };

/** Two replicas on this file's Redis whose calls need no token from it (a static one): they run with Redis away. */
async function twoReplicas(): Promise<[ServedHttpHost, ServedHttpHost]> {
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    mcp: { maxResultBytes: 6000 },
  };
  const env = {
    TOOLHOST_REDIS_URL: redis.url,
    TOOLHOST_TOKEN_KEY: TOKEN_KEY,
    TOOLHOST_ACCESS_TOKENS: `alice:${ALICE}`,
    ECHO_AUTH_TOKEN: 'static-token',
  };
  for (let i = 0; i < 2; i += 1) started.push(await serveHttpHost(config, env));
  return started.slice(-2) as [ServedHttpHost, ServedHttpHost];
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'results-probe', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    }),
  );
  clients.push(client);
  return client;
}

describe('replica probe: large results and Redis restarts', () => {
  it('lets another replica read a result made while Redis was away, once Redis is back', async () => {
    const [a, b] = await twoReplicas();
    upstream.respond(() => ({ status: 200, body: big }));
    const onA = await connect(a.url);
    const onB = await connect(b.url);
    await redis.stop({ save: true });
    let uri: string;
    try {
      const result = await onA.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'big' } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      uri = (result.content as { type: string; uri?: string }[]).find((c) => c.type === 'resource_link')!
        .uri!;
    } finally {
      await redis.start();
    }
    // Readable on A all along; on B once Redis answers again.
    expect(JSON.parse(((await onA.readResource({ uri })).contents[0] as { text: string }).text)).toEqual(big);
    await vi.waitFor(
      async () => {
        const read = await onB.readResource({ uri });
        expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(big);
      },
      { timeout: 15_000, interval: 250 },
    );
    expect(await keysWithoutExpiry(admin)).toEqual([]);
  }, 40_000);

  it("keeps each user's share of the results made while Redis is away: past it their own oldest go, never another's", async () => {
    const [a, b] = await twoReplicas();
    const [onA, onB] = [a, b].map((r) => r.host.serving.replicas!.results);
    // One text for all (a replica's results are strings of their own; the bounds count bytes alike).
    const text = 'x'.repeat(4 * MiB);
    let made = 0;
    const result = (userId: string, bytes: number) => ({
      uri: `${RESULT_URI_PREFIX}${randomUUID()}`,
      tool: 'EchoApi.GetItem',
      text: text.slice(0, bytes),
      bytes,
      expiresAt: Date.now() + 120_000 + made++,
      userId,
    });
    const bobs = result('bob', MiB);
    // Alice makes more than the whole 64 MiB a replica keeps for Redis: one pool, it pushed Bob's out.
    const alices = Array.from({ length: 17 }, () => result('alice', 4 * MiB));
    await redis.stop({ save: true });
    try {
      for (const r of [bobs, ...alices])
        await expect(onA!.put(r, USER_RESULT_BYTES)).rejects.toMatchObject({ code: 'store_unavailable' });
    } finally {
      await redis.start();
    }
    // Written in the order made: Alice's newest is the last.
    const newest = alices.at(-1)!;
    await vi.waitFor(async () => expect((await onB!.get(newest.uri, 'alice'))?.bytes).toBe(4 * MiB), {
      timeout: 30_000,
      interval: 250,
    });
    expect((await onB!.get(bobs.uri, 'bob'))?.text).toHaveLength(MiB);
    // Her share, a quarter of the 64 MiB: her four newest; the older ones stay on A only.
    expect((await onB!.list('alice')).map((r) => r.uri)).toEqual(alices.slice(-4).map((r) => r.uri));
    expect(await keysWithoutExpiry(admin)).toEqual([]);
  }, 60_000);
});

const MiB = 1024 * 1024;
/** What the host lets one user's results take in Redis by default (a quarter of a replica's 256 MiB). */
const USER_RESULT_BYTES = 64 * MiB;
