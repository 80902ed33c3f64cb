import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { heldAnswers } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { expectPaced, pacedSpans } from './paced-spans.js';
import {
  largeResultOnOtherReplica,
  pacingAcrossReplicas,
  pendingAuthorizationAcrossReplicas,
  perUserBoundsAcrossReplicas,
  writesAcrossReplicas,
} from './replica-scenarios.js';
import {
  admin,
  authorizeAlice,
  echoConfig,
  errorCode,
  getItem,
  hosts,
  logs,
  redis,
  replica,
  replicaEnv,
  repoRoot,
  suite,
  testLogger,
  upstream,
  useSharedStoreSuite,
} from './shared-store-setup.js';
import { ALICE_ACCESS_TOKEN, spawnHttpHost } from './support.js';

useSharedStoreSuite();

// Replicas sharing one Redis while they serve: pacing, Redis faults, idempotency claims, what an
// operator sees, large results, per-user bounds and writes. Start-up, tokens and refreshes are
// in shared-store.test.ts.
describe('shared store (Redis): pacing across replicas', () => {
  const gridConfig: HostConfig = { toolSets: { GridApi: { baseUrl: '' } } };
  const gridReplica = () =>
    createHost(
      { ...gridConfig, toolSets: { GridApi: { baseUrl: upstream.url } } },
      {
        configDir: repoRoot,
        pluginPackages: ['@toolhost/plugin-grid'],
        env: replicaEnv({ GRID_AUTH_PROVIDER_TOKEN: 'grid-static-token-for-tests' }),
        logger: testLogger(),
      },
    ).then((h) => {
      hosts.push(h);
      return h;
    });
  const listRecords = (host: Host) =>
    host.callTool('GridApi.ListGridRecords', { base_id: 'appAAAAAAAAAAAAAA', table_id_or_name: 'tbl1' });
  /** The upstream answers `body` and keeps when each request reached it. */
  const recordArrivals = (body: unknown): number[] => {
    const arrivals: number[] = [];
    upstream.respond((req) => {
      arrivals.push(req.receivedAt);
      return { status: 200, body };
    });
    return arrivals;
  };

  it('lets no more than 5 requests a second reach one base from two replicas', async () => {
    await pacingAcrossReplicas(suite());
  }, 60_000);

  it('holds one HubSpot account to its burst limit across replicas and HubSpot tool sets', async () => {
    const arrivals = recordArrivals({ results: [] });
    const hubspotReplica = async () => {
      const host = await createHost(
        { toolSets: { CrmEventsApi: { baseUrl: upstream.url }, CrmMarketingApi: { baseUrl: upstream.url } } },
        {
          configDir: repoRoot,
          pluginPackages: ['@toolhost/plugin-crm-events', '@toolhost/plugin-crm-marketing'],
          env: replicaEnv({ CRM_AUTH_PROVIDER_TOKEN: 'hubspot-private-app-token-for-tests' }),
        },
      );
      hosts.push(host);
      return host;
    };
    const a = await hubspotReplica();
    const b = await hubspotReplica();
    // Two users of one private-app token: one HubSpot account, one budget.
    const call = (i: number) =>
      (i % 2 ? a : b).callTool(
        i % 3 ? 'CrmEventsApi.RetrieveCustomEventDefinitions' : 'CrmMarketingApi.GetMarketingCampaigns',
        {},
        { userId: i % 4 < 2 ? 'alice' : 'bob' },
      );
    const { result: outcomes, ...spans } = await pacedSpans(upstream.url, arrivals, 10, () =>
      Promise.all(Array.from({ length: 30 }, (_, i) => call(i))),
    );
    expect(outcomes.map(errorCode)).toEqual(Array(30).fill(undefined));
    // The host spaces one HubSpot account's requests to 9 a second (under HubSpot's 100 in
    // 10 s): any 10 of them leave at least 1.1 s apart, and arrive at least a second apart.
    expectPaced(spans, 10, 30);
  }, 60_000);

  it('paces per process, with one warning, while Redis is unreachable', async () => {
    const a = await gridReplica();
    await redis.stop();
    try {
      const outcomes = await Promise.all(Array.from({ length: 3 }, () => listRecords(a)));
      expect(outcomes.map(errorCode)).toEqual([undefined, undefined, undefined]);
      expect(logs.match(/pacing per process until it returns/g)).toHaveLength(1);
      const metrics = await a.metrics();
      expect(metrics).toContain('toolhost_pacing_degraded{pacer="GridApi"} 1');
      expect(metrics).toContain('toolhost_shared_store_up 0');
    } finally {
      await redis.start();
    }
  });
});

describe('shared store (Redis): faults while serving', () => {
  it('answers store_unavailable while Redis is down, and recovers when it returns', async () => {
    const a = await replica();
    const token = await authorizeAlice(a);
    expect(errorCode(await getItem(a, 'i1'))).toBeUndefined();

    await redis.stop({ save: true });
    const down = await getItem(a, 'i2');
    expect(down.ok ? undefined : down.error).toMatchObject({ code: 'store_unavailable', retryable: true });
    expect(JSON.stringify(down)).not.toContain(token.accessToken);

    await redis.start();
    const deadline = Date.now() + 10_000;
    let back = await getItem(a, 'i3');
    while (!back.ok && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      back = await getItem(a, 'i3');
    }
    expect(errorCode(back)).toBeUndefined();
    expect(upstream.requests.map((r) => r.path)).toEqual(['/items/i1', '/items/i3']);
    expect(logs).not.toContain(token.accessToken);
    expect(logs).not.toContain(token.refreshToken);
  });

  it('answers store_unavailable when Redis hangs, instead of hanging the call', async () => {
    // A frozen Redis is given store.commandTimeoutMs per command: 2 s rather than the default
    // 5 s shows the same without waiting out the default, and leaves a loaded machine's healthy
    // commands (before the freeze and after it) 2 s.
    const a = await replica({ ...echoConfig(), store: { commandTimeoutMs: 2000 } });
    await authorizeAlice(a);
    redis.pause();
    try {
      const hung = await getItem(a, 'i1');
      expect(hung.ok ? undefined : hung.error).toMatchObject({ code: 'store_unavailable', retryable: true });
    } finally {
      redis.resume();
    }
    expect(errorCode(await getItem(a, 'i2'))).toBeUndefined();
  });
});

describe('shared store (Redis): idempotency claims end with their owner', () => {
  const ECHO_KEY = 'echo-static-key-for-claims';
  const CREATE_ARGS = { mode: 'execute', request_body: JSON.stringify({ name: 'n1' }) };
  const writeConfig = (): HostConfig => ({ ...echoConfig(), tools: { idempotencyClaimSeconds: 2 } });
  const create = (host: Host, key: string) =>
    host.callTool('EchoApi.CreateItem', CREATE_ARGS, { userId: 'alice', idempotencyKey: key });

  it('tells a retry on another replica, within seconds, that a killed replica may have sent the write; never sends it again', async () => {
    const held = heldAnswers({ status: 201, body: { id: 'x' } });
    upstream.respond(held.responder);
    const a = await spawnHttpHost(writeConfig(), {
      ...(replicaEnv({ ECHO_KEY, TOOLHOST_ACCESS_TOKENS: `alice:${ALICE_ACCESS_TOKEN}` }) as Record<
        string,
        string
      >),
    });
    try {
      const client = new Client({ name: 'claims-test', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(a.url), {
          requestInit: { headers: { authorization: `Bearer ${ALICE_ACCESS_TOKEN}` } },
        }),
      );
      const sent = client
        .callTool({
          name: 'EchoApi_CreateItem',
          arguments: CREATE_ARGS,
          _meta: { 'toolhost/idempotencyKey': 'killed-mid-write' },
        })
        .catch(() => undefined);
      while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
      a.child.kill('SIGKILL');
      await a.exited;
      await sent;
      const b = await replica(writeConfig(), replicaEnv({ ECHO_KEY }));
      const started = Date.now();
      const retried = await create(b, 'killed-mid-write');
      expect(errorCode(retried)).toBe('idempotency_outcome_unknown');
      // The killed replica's claim lives 2 s (idempotencyClaimSeconds): 3 s more for a loaded
      // machine, far from the 10 s wait a retry that waited the key out would take.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(upstream.requests).toHaveLength(1);
      // And again later: the key never sends.
      expect(errorCode(await create(b, 'killed-mid-write'))).toBe('idempotency_outcome_unknown');
      expect(upstream.requests).toHaveLength(1);
    } finally {
      held.release();
      a.child.kill('SIGKILL');
    }
  }, 60_000);

  it('stores the outcome once Redis is back after a blip between sending and storing; the retry gets it, nothing sent twice', async () => {
    const a = await replica(writeConfig(), replicaEnv({ ECHO_KEY }));
    const b = await replica(writeConfig(), replicaEnv({ ECHO_KEY }));
    upstream.respond(async () => {
      // Redis goes away while the write is at the upstream (its claim and attempt saved).
      await redis.stop({ save: true });
      return { status: 201, body: { id: 'made-once' } };
    });
    const first = await create(a, 'blip');
    expect(first).toMatchObject({ ok: true, body: { id: 'made-once' } });
    await redis.start();
    upstream.respond(() => ({ status: 201, body: { id: 'made-twice' } }));
    let retried = await create(b, 'blip');
    const deadline = Date.now() + 15_000;
    while (!retried.ok && Date.now() < deadline) {
      expect(['store_unavailable', 'idempotency_in_progress']).toContain(errorCode(retried));
      await new Promise((r) => setTimeout(r, 200));
      retried = await create(b, 'blip');
    }
    expect(retried).toEqual(first);
    expect(upstream.requests).toHaveLength(1);
  }, 60_000);

  it('answers idempotency_in_progress, sending nothing, while the key runs on a live replica past the wait', async () => {
    const config = { ...echoConfig(), tools: { idempotencyClaimSeconds: 2, idempotencyWaitSeconds: 1 } };
    const a = await replica(config, replicaEnv({ ECHO_KEY }));
    const b = await replica(config, replicaEnv({ ECHO_KEY }));
    // Answered only once the second call has been: a fixed delay let a loaded machine's second
    // call come after the first had ended.
    const held = heldAnswers({ status: 201, body: { id: 'slow' } });
    upstream.respond(held.responder);
    const first = create(a, 'slow');
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    // Held past two claim lifetimes: the lease is renewed while the call runs.
    await new Promise((r) => setTimeout(r, 3000));
    const second = await create(b, 'slow');
    held.release();
    expect(second).toMatchObject({ ok: false, error: { code: 'idempotency_in_progress', retryable: true } });
    expect(await first).toMatchObject({ ok: true });
    expect(await create(b, 'slow')).toEqual(await first);
    expect(upstream.requests).toHaveLength(1);
  }, 60_000);
});

describe('shared store (Redis): what an operator sees', () => {
  it('answers /readyz 503 while Redis is unreachable (/healthz and /livez 200), and names the replica in every log line', async () => {
    const child = await spawnHttpHost(echoConfig(), {
      ...(replicaEnv({ TOOLHOST_REPLICA_ID: 'replica-a7' }) as Record<string, string>),
      TOOLHOST_LOG_FORMAT: 'json',
    });
    const base = new URL(child.url).origin;
    const probe = async (path: string) => {
      const r = await fetch(`${base}${path}`);
      return [r.status, ((await r.json()) as { status: string }).status] as const;
    };
    try {
      expect(await probe('/readyz')).toEqual([200, 'ready']);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      for (const line of [
        'toolhost_shared_store_up 1',
        'toolhost_http_sessions 0',
        'process_cpu_user_seconds_total',
      ])
        expect(metrics).toContain(line);
      await redis.stop({ save: true });
      let ready = await probe('/readyz');
      for (let i = 0; i < 100 && ready[0] === 200; i += 1) {
        await new Promise((r) => setTimeout(r, 20));
        ready = await probe('/readyz');
      }
      expect(ready).toEqual([503, 'store_unavailable']);
      expect(await probe('/healthz')).toEqual([200, 'ok']);
      expect(await probe('/livez')).toEqual([200, 'ok']);
      for (let i = 0; i < 100 && !child.logs().includes('shared store (Redis) unreachable'); i += 1)
        await new Promise((r) => setTimeout(r, 20));
      await redis.start();
      for (let i = 0; i < 200 && ready[0] !== 200; i += 1) {
        await new Promise((r) => setTimeout(r, 25));
        ready = await probe('/readyz');
      }
      expect(ready).toEqual([200, 'ready']);
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
    const lines = child
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { replica?: string; msg: string });
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line.replica).toBe('replica-a7');
    expect(lines.map((l) => l.msg)).toContain('shutting down');
    expect(lines.map((l) => l.msg)).toContain('shared store (Redis) unreachable');
  }, 60_000);
});

describe('shared store (Redis): large results', () => {
  it("serves a large result's resource_link from any replica, to its owner only, sealed in Redis", async () => {
    await largeResultOnOtherReplica(suite());
    for (const key of await admin.keys('toolhost:result*'))
      if ((await admin.type(key)) === 'string') expect(await admin.get(key)).not.toContain('s-1');
  }, 60_000);
});

describe('shared store (Redis): per-user bounds across replicas', () => {
  it("bounds a user's previews and idempotency keys across the replicas, naming the setting; expiries free places", async () => {
    await perUserBoundsAcrossReplicas(suite());
  });
});

describe('shared store (Redis): writes and authorizations across replicas', () => {
  it('honours idempotency keys and previews across replicas: sent once, answered on either', async () => {
    await writesAcrossReplicas(suite());
  });

  it('completes on replica B a pending authorization replica A started, once', async () => {
    await pendingAuthorizationAcrossReplicas(suite());
  });
});
