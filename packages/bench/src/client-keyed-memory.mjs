// Heap after GC while clients vary what the host keeps state by: the narrowing headers of a
// dynamic catalog's searches, a pacing parameter (Airtable's base id), and sessions that are
// offered a sign-in by URL elicitation and then close. Each phase reads the heap before and
// after; figures that stay flat mean the host keeps nothing per distinct value beyond its bounds.
// Run: node --expose-gc src/client-keyed-memory.mjs
import { createServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost, serveHttp } from '@toolhost/host';

const PLUGINS = [
  '@toolhost/plugin-grid',
  '@toolhost/plugin-crm-events',
  '@toolhost/plugin-crm-marketing',
  '@toolhost/plugin-crm-automation',
  '@toolhost/plugin-cdp-pipelines',
];
const TOOL_SETS = ['GridApi', 'CrmEventsApi', 'CrmMarketingApi', 'CrmAutomationApi', 'CdpPipelinesApi'];

/** Heap used after two full collections, in MB. */
function heapMb() {
  if (!globalThis.gc) throw new Error('run with --expose-gc');
  globalThis.gc();
  globalThis.gc();
  return Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10;
}

/** A loopback upstream answering every request 200 `{}`. */
async function upstream() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${address.port}`, close: () => server.close() };
}

/**
 * Runs `step` `n` times, one after another, and gives the heap before and after.
 * @param {number} n
 * @param {(i: number) => Promise<unknown>} step
 */
async function phase(n, step) {
  const before = heapMb();
  const started = performance.now();
  for (let i = 0; i < n; i += 1) await step(i);
  return { n, heapBeforeMb: before, heapAfterMb: heapMb(), seconds: (performance.now() - started) / 1000 };
}

/** @param {string} base */
async function narrowedSearches(base) {
  const host = await createHost(
    {
      toolSets: Object.fromEntries(TOOL_SETS.map((s) => [s, { baseUrl: base }])),
      mcp: { catalog: 'dynamic' },
    },
    { pluginPackages: PLUGINS, env: {} },
  );
  const server = await serveHttp(host, { port: 0 });
  const all = host.listTools().map((t) => t.name.replace('.', '_'));
  /** @param {Record<string, string>} headers */
  const search = (headers) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'search_tools',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'search_tools',
          arguments: { query: 'list records in a table' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    }).then((r) => r.text());
  await search({});
  // Each request names every tool and one that does not exist: a narrowing of its own.
  const figures = await phase(64, (i) => search({ 'x-mcp-tools': [...all, `Nope${i}`].join(',') }));
  await server.close();
  await host.close();
  return figures;
}

/** @param {string} base */
async function longPacingKeys(base) {
  const host = await createHost(
    { toolSets: { GridApi: { baseUrl: base } } },
    {
      pluginPackages: ['@toolhost/plugin-grid'],
      env: { GRID_AUTH_PROVIDER_TOKEN: 'patBenchToken.0123456789abcdef' },
    },
  );
  /** @param {string} baseId */
  const call = (baseId) =>
    host.callTool('GridApi.ListGridRecords', { base_id: baseId, table_id_or_name: 'tbl1' });
  for (let i = 0; i < 50; i += 1) await call(`appWarm${i}`);
  const figures = await phase(300, (i) => call(`app${i}${'x'.repeat(100_000)}`));
  await host.close();
  return figures;
}

/** @param {string} base */
async function signInSessions(base) {
  const host = await createHost(
    {
      toolSets: { GridApi: { baseUrl: base } },
      auth: {
        providers: {
          'grid-auth-provider': {
            clientId: 'bench',
            authorizeUrl: 'https://auth.invalid/authorize',
            tokenUrl: 'https://auth.invalid/token',
          },
        },
      },
    },
    { pluginPackages: ['@toolhost/plugin-grid'], env: {} },
  );
  const server = await serveHttp(host, { port: 0 });
  const session = async () => {
    const client = new Client(
      { name: 'bench', version: '0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    await client
      .callTool({ name: 'GridApi_ListGridRecords', arguments: { base_id: 'appA', table_id_or_name: 't' } })
      .catch(() => {});
    await transport.terminateSession();
    await client.close();
  };
  for (let i = 0; i < 50; i += 1) await session();
  const figures = await phase(500, session);
  await server.close();
  await host.close();
  return figures;
}

const up = await upstream();
const results = {
  narrowedSearches: await narrowedSearches(up.url),
  longPacingKeys: await longPacingKeys(up.url),
  signInSessions: await signInSessions(up.url),
};
up.close();
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
