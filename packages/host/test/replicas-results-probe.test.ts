import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
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
});
