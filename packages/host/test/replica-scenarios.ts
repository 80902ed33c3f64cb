import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ToolOutcome } from '@toolhost/core';
import { expect } from 'vitest';
import type { RecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import type { Host } from '../src/host.js';
import { spawnHttpHost } from './support.js';
import { writeHost } from './write-support.js';

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

const errorOf = (o: ToolOutcome | { ok: boolean }) =>
  'error' in o ? (o.error as { code: string; message: string }) : undefined;

/**
 * A user's previews and idempotency keys are bounded across the replicas, not per replica:
 * filled half on each, the next is refused on either, naming the setting; another user goes
 * on; once the user's records expire, their places are free again.
 */
export async function perUserBoundsAcrossReplicas(input: {
  upstream: RecordingUpstream;
  env: Record<string, string>;
  store?: HostConfig['store'];
}): Promise<void> {
  input.upstream.respond(() => ({ status: 200, body: { ok: true } }));
  const config: HostConfig = {
    tools: { previewsPerUser: 4, previewTtlSeconds: 1, idempotencyKeysPerUser: 4, idempotencyTtlSeconds: 2 },
    ...(input.store ? { store: input.store } : {}),
  };
  const replicas: Host[] = [];
  try {
    replicas.push(await writeHost(input.upstream.url, config, input.env));
    replicas.push(await writeHost(input.upstream.url, config, input.env));
    const [a, b] = replicas as [Host, Host];
    const update = { id: 'thing-1', title: 'T' };
    const preview = (host: Host, userId: string) =>
      host.previewToolCall('WriteApi.UpdateThing', update, { userId });
    const keyed = (host: Host, userId: string, key: string) =>
      host.callTool('WriteApi.UpdateThing', update, { userId, idempotencyKey: key });

    // Both replicas at once: the bound holds however the user's calls interleave.
    const made = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => preview(i % 2 ? a : b, 'alice')));
    expect(made.filter((o) => o.ok)).toHaveLength(4);
    for (const host of [a, b]) {
      const refused = errorOf(await preview(host, 'alice'));
      expect(refused?.code).toBe('store_unavailable');
      expect(refused?.message).toContain('tools.previewsPerUser');
      expect(refused?.message).toContain('across the replicas');
    }
    expect((await preview(b, 'bob')).ok).toBe(true);

    const sent = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => keyed(i % 2 ? a : b, 'alice', `k-${i}`)));
    expect(sent.filter((o) => o.ok)).toHaveLength(4);
    for (const host of [a, b]) {
      const refused = errorOf(await keyed(host, 'alice', 'k-more'));
      expect(refused?.code).toBe('store_unavailable');
      expect(refused?.message).toContain('tools.idempotencyKeysPerUser');
    }
    // The refused ones were not sent; another user's key goes.
    expect(input.upstream.requests).toHaveLength(4);
    expect((await keyed(a, 'bob', 'k-0')).ok).toBe(true);

    // Previews are kept twice their life (2 s), keys theirs (2 s): then their places are free.
    await sleep(2300);
    expect((await preview(a, 'alice')).ok).toBe(true);
    expect((await keyed(b, 'alice', 'k-after')).ok).toBe(true);
  } finally {
    await Promise.all(replicas.map((h) => h.close()));
  }
}
