// Memory while clients open and drop many Streamable HTTP sessions: the host served in this
// process (so that its heap can be read after a full GC), each client initializing, making
// one call and then either ending its session (DELETE) or abandoning it (never heard from
// again: the session cap closes the least recently used). Heap after GC and RSS are read at
// the start, halfway and at the end; flat figures mean nothing is kept per dropped session.
import { getHeapSpaceStatistics } from 'node:v8';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { round } from './measure.mjs';

// V8's compiled code lives in the heap too, and grows for a while as it optimises the paths
// the calls take (a heap snapshot diff over 3,000 sessions showed 0.6 MB of code and no
// objects per session): the objects, without the code, tell whether sessions leave anything.
const CODE_SPACES = new Set(['code_space', 'code_large_object_space']);

/**
 * Heap used after two full collections, the part of it that is compiled code, and RSS, in MB
 * (heap figures undefined without --expose-gc).
 */
function memory() {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  const code = getHeapSpaceStatistics()
    .filter((s) => CODE_SPACES.has(s.space_name))
    .reduce((sum, s) => sum + s.space_used_size, 0);
  return {
    heapMb: globalThis.gc ? round(m.heapUsed / 2 ** 20, 2) : undefined,
    objectsMb: globalThis.gc ? round((m.heapUsed - code) / 2 ** 20, 2) : undefined,
    rssMb: round(m.rss / 2 ** 20, 1),
  };
}

/**
 * @param {string} upstream
 * @param {{ sessions: number }} counts
 */
export async function measureSessionChurn(upstream, counts) {
  const { createHost, serveHttp } = await import('@toolhost/host');
  const host = await createHost({
    plugins: ['@toolhost/plugin-crm-events'],
    toolSets: { CrmEventsApi: { baseUrl: upstream, pacing: false } },
    auth: { providers: { 'crm-auth-provider': { token: 'bench-token' } } },
  });
  const server = await serveHttp(host, { port: 0 });
  const url = new URL(server.url);
  let failures = 0;
  /** @param {number} i */
  const session = async (i) => {
    const transport = new StreamableHTTPClientTransport(url);
    // Four client programs: without access tokens each keeps at most 16 sessions (the
    // per-client cap), so abandoned ones are closed by the cap rather than kept 30 minutes.
    const client = new Client({ name: `churn-${i % 4}`, version: '0.0.0' });
    try {
      await client.connect(transport);
      const r = await client.callTool({
        name: 'CrmEventsApi_RetrieveCustomEventDefinitions',
        arguments: { results_per_page_limit: 10 },
      });
      if (r.isError) failures += 1;
      // Half end their session as the protocol asks; the other half just go away.
      if (i % 2 === 0) await transport.terminateSession();
    } catch {
      failures += 1;
    } finally {
      await client.close().catch(() => {});
    }
  };
  /** @param {number} from @param {number} to */
  const churn = async (from, to) => {
    let next = from;
    const worker = async () => {
      for (let i = next++; i < to; i = next++) await session(i);
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  };
  // A first batch loads what calls need, fills the per-client caps with abandoned sessions
  // and lets V8 settle its optimised code and feedback for these paths, so that the start
  // figure is neither the cost of loading, nor of the cap, nor of warming up: with 200
  // sessions first the heap still grew by about 1.3 MB over the next 1,000 and 0.3 MB over
  // the 1,000 after, and a heap snapshot diff after 2,200 found only compiled code growing.
  const first = 1000;
  await churn(0, first);
  const start = memory();
  const half = Math.floor(counts.sessions / 2);
  await churn(first, first + half);
  const middle = memory();
  await churn(first + half, first + counts.sessions);
  const end = memory();
  await host.close();
  await server.close();
  return {
    sessions: counts.sessions,
    warmupSessions: first,
    failures,
    start,
    middle,
    end,
    heapGrowthMb: round((end.heapMb ?? Number.NaN) - (start.heapMb ?? Number.NaN), 2),
    objectsGrowthMb: round((end.objectsMb ?? Number.NaN) - (start.objectsMb ?? Number.NaN), 2),
  };
}
