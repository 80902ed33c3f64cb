import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { HostConfig } from '../src/config/host-config.js';
import { type HttpHostProcess, spawnHttpHost } from './support.js';

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
    { ECHO_AUTH_TOKEN: 'tok' },
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
});
