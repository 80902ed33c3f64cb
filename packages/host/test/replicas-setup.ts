import {
  type CallToolResult,
  Client,
  type ProtocolError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import { type Balancer, startBalancer } from './balancer.js';
import { echoAuthProviders, fakeClient } from './fake-oauth-server.js';
import { type HttpReplica, type ServedHttpHost, serveHttpHost } from './served-http-host.js';
import {
  admin,
  oauth,
  redis,
  suite,
  TOKEN_KEY,
  upstream,
  useStandaloneRedis,
} from './standalone-redis-setup.js';
import {
  ALICE_ACCESS_TOKEN as ALICE,
  BOB_ACCESS_TOKEN as BOB,
  type HttpHostProcess,
  spawnHttpHost,
} from './support.js';
import { type ModernRetry, postModernCall } from './write-support.js';

// What the replica test files share: one Redis, a fake vendor and an upstream per file
// (standalone-redis-setup.ts), a balancer, emptied before each test, and the replicas
// (in-process or spawned) and clients a test started, stopped after it. The suite is split in files so that they run side
// by side; each file that calls useReplicaSuite() gets its own.

export { admin, oauth, suite, TOKEN_KEY, upstream };
export let balancer: Balancer;
export const replicas: HttpHostProcess[] = [];
const served: ServedHttpHost[] = [];
export const clients: Client[] = [];

/** Replicas behind the balancer: links and redirect URIs name the balancer, as behind a real one. */
export function replicaConfig(): HostConfig {
  return {
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    http: { publicUrl: balancer.url },
    auth: {
      providers: echoAuthProviders(oauth),
    },
  };
}

const replicaEnv = () => ({
  TOOLHOST_REDIS_URL: redis.url,
  TOOLHOST_TOKEN_KEY: TOKEN_KEY,
  TOOLHOST_ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}`,
  ECHO_AUTH_CLIENT_SECRET: fakeClient.clientSecret,
});

/** Two replicas sharing Redis behind the balancer, each served in this process (served-http-host.ts); A first. */
export async function startReplicas(
  extra: Partial<HostConfig> = {},
): Promise<[ServedHttpHost, ServedHttpHost]> {
  for (let i = 0; i < 2; i += 1)
    served.push(await serveHttpHost({ ...replicaConfig(), ...extra }, replicaEnv()));
  const started = served.slice(-2) as [ServedHttpHost, ServedHttpHost];
  balancer.targets = started.map(origin);
  return started;
}

/**
 * Two replicas sharing Redis behind the balancer, for the tests that kill A (SIGKILL: nothing of
 * it runs on, its connections cut mid-answer): A a real `toolhost serve --http` process, B served
 * in this process.
 */
export async function startReplicasToKillA(
  extra: Partial<HostConfig> = {},
): Promise<[HttpHostProcess, ServedHttpHost]> {
  const [a, b] = await Promise.all([
    spawnHttpHost({ ...replicaConfig(), ...extra }, replicaEnv()),
    serveHttpHost({ ...replicaConfig(), ...extra }, replicaEnv()),
  ]);
  replicas.push(a);
  served.push(b);
  balancer.targets = [a, b].map(origin);
  return [a, b];
}

export const origin = (r: HttpReplica) => new URL(r.url).origin;

export async function connect(
  url: string,
  token = ALICE,
  capabilities: Record<string, unknown> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'replica-test', version: '0.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

export interface ModernAnswer {
  result?: CallToolResult & { resultType?: string; requestState?: string };
  error?: { code: number; message: string };
}

/** A 2026-07-28 tools/call of Alice's by hand (and its retry with her answer): the body of a 200, else thrown. */
export async function modernCall(
  url: string,
  name: string,
  args: Record<string, unknown>,
  retry?: ModernRetry,
): Promise<ModernAnswer> {
  const res = await postModernCall(url, { token: ALICE, name, args, retry });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as ModernAnswer;
}

export const getItem = (c: Client, id = 'i1', options?: Parameters<Client['callTool']>[1]) =>
  c.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: id } }, options) as Promise<CallToolResult>;

/** The sign-in a call is answered with by URL elicitation (error -32042). */
export async function urlElicitationOf(client: Client): Promise<{ url: string; elicitationId: string }> {
  const error = await getItem(client).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect((error as ProtocolError).code).toBe(-32042);
  return ((error as ProtocolError).data as { elicitations: { url: string; elicitationId: string }[] })
    .elicitations[0]!;
}

/**
 * This file's Redis, fake vendor and balancer, emptied before each test; its replicas and clients stopped after it.
 * Called at the top of each test file: a worker runs several files and imports this module once.
 */
export function useReplicaSuite(): void {
  useStandaloneRedis();
  beforeAll(async () => {
    balancer = await startBalancer();
  });
  afterAll(() => balancer.close());
  beforeEach(() => {
    balancer.forwarded.length = 0;
    balancer.pick = undefined;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    await Promise.all(served.splice(0).map((r) => r.close()));
    for (const r of replicas.splice(0)) {
      r.child.kill('SIGTERM');
      await r.exited;
    }
  });
}
