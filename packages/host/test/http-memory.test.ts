import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/mcp/serve-http.js';
import { type RecordingUpstream, startRecordingUpstream } from '../src/testing/recording-upstream.js';
import { fixtureApp } from './support.js';

// A full GC on demand, without starting the test process with --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CALLS = Number(process.env.TOOLHOST_MEMORY_CALLS ?? 2000);

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
    { configDir: fixtureApp, env: { ECHO_AUTH_TOKEN: 'static-token-x' } },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await upstream.close();
});

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('memory over one HTTP session', () => {
  it(`keeps the heap after GC flat over ${CALLS.toLocaleString('en')} calls`, {
    timeout: 120_000,
  }, async () => {
    const client = new Client({ name: 'memory', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const calls = async (n: number) => {
      // Eight at a time on the one session; the recording upstream keeps no requests.
      const next = { i: 0 };
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next.i < n) {
            next.i += 1;
            const r = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'm' } });
            if (r.isError) throw new Error(JSON.stringify(r));
            upstream.reset();
          }
        }),
      );
    };
    await calls(1000); // warm-up: code, pools and V8's heap sizing settle
    const start = heapAfterGc();
    await calls(CALLS);
    const growth = heapAfterGc() - start;
    process.stderr.write(
      `heap after GC: ${(start / 2 ** 20).toFixed(1)} MB after 1,000 calls, ${((start + growth) / 2 ** 20).toFixed(1)} MB after ${CALLS + 1000} (growth ${(growth / 2 ** 20).toFixed(2)} MB)\n`,
    );
    // The leak this guards against kept about 3 kB per call (60 MB over 20,000).
    expect(growth).toBeLessThan(4 * 2 ** 20);
    await client.close();
  });
});
