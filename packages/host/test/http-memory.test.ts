import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { SessionTransport } from '../src/http/session-transport.js';
import { fixtureApp } from './support.js';

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

async function session() {
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
  return { client, calls };
}

describe('memory over one HTTP session', () => {
  it('keeps no per-request transport state once calls are answered', { timeout: 60_000 }, async () => {
    const transports = new Set<SessionTransport>();
    const proto = SessionTransport.prototype;
    const handleRequest = proto.handleRequest;
    proto.handleRequest = function (this: SessionTransport, ...args) {
      transports.add(this);
      return handleRequest.apply(this, args);
    };
    try {
      const { client, calls } = await session();
      await calls(200);
      expect(transports.size).toBe(1);
      // Every call was answered, so the session owes nothing and holds nothing per call.
      expect([...transports][0]!.openRequests).toBe(0);
      await client.close();
    } finally {
      proto.handleRequest = handleRequest;
    }
  });

  // The figure in the README: TOOLHOST_MEMORY_CALLS=20000 (about a minute on 2 cores).
  const figureCalls = Number(process.env.TOOLHOST_MEMORY_CALLS ?? 0);
  it.runIf(figureCalls > 0)(
    `keeps the heap after GC flat over ${figureCalls} calls`,
    { timeout: 600_000 },
    async () => {
      // A full GC on demand, without starting the test process with --expose-gc.
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const heapAfterGc = () => {
        gc();
        gc();
        return process.memoryUsage().heapUsed;
      };
      const { client, calls } = await session();
      await calls(1000); // warm-up: code, pools and V8's heap sizing settle
      const start = heapAfterGc();
      await calls(figureCalls);
      const growth = heapAfterGc() - start;
      process.stderr.write(
        `heap after GC: ${(start / 2 ** 20).toFixed(1)} MB after 1,000 calls, ${((start + growth) / 2 ** 20).toFixed(1)} MB after ${figureCalls + 1000} (growth ${(growth / 2 ** 20).toFixed(2)} MB)\n`,
      );
      expect(growth).toBeLessThan(4 * 2 ** 20);
      await client.close();
    },
  );
});
