import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { spawnHttpHost } from './support.js';

// Scenarios that must hold on every shared-store deployment (standalone Redis, Sentinel,
// Cluster): each suite runs them against its own store.

/**
 * A result over the budget, made on one HTTP replica, is read and listed through its
 * resource_link on the other by its owner, and by no other user.
 */
export async function largeResultOnOtherReplica(input: {
  upstream: RecordingUpstream;
  /** The replicas' environment (the store's URL and key, where the suite sets them there). */
  env: Record<string, string>;
  /** The config's store section, where the suite sets the store there. */
  store?: HostConfig['store'];
}): Promise<void> {
  const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' };
  const big = { items: Array.from({ length: 2000 }, (_, i) => ({ id: `item-${i}`, secret: `s-${i}` })) };
  input.upstream.respond(() => ({ status: 200, body: big }));
  const config: HostConfig = {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: input.upstream.url } },
    http: { accessTokens: TOKENS },
    mcp: { maxResultBytes: 6000 },
    ...(input.store ? { store: input.store } : {}),
  };
  const env = { ...input.env, ECHO_AUTH_TOKEN: 'tok' };
  const [a, b] = await Promise.all([spawnHttpHost(config, env), spawnHttpHost(config, env)]);
  const clients: Client[] = [];
  const connect = async (url: string, token: string) => {
    const client = new Client({ name: 'results-replicas', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  try {
    const onA = await connect(a.url, TOKENS.alice);
    const result = await onA.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'big' } });
    const uri = (result.content as { type: string; uri?: string }[]).find((c) => c.type === 'resource_link')!
      .uri!;
    const onB = await connect(b.url, TOKENS.alice);
    const read = await onB.readResource({ uri });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(big);
    expect((await onB.listResources()).resources.map((r) => r.uri)).toContain(uri);
    const bobOnB = await connect(b.url, TOKENS.bob);
    await expect(bobOnB.readResource({ uri })).rejects.toThrow(/Resource not found/);
    expect((await bobOnB.listResources()).resources).toEqual([]);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    for (const r of [a, b]) {
      r.child.kill('SIGTERM');
      await r.exited;
    }
  }
}
