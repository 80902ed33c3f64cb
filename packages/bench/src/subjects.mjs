// What the bench measures and what it calls: the loopback upstream, the three MCP servers
// (bare SDK floor, toolhost, peer) with their arguments and configs, the direct axios call
// every overhead is taken against, and the host embedded in this process.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axios from 'axios';
import { processCpuMs } from './measure.mjs';
import { SCRATCH_DIR, track } from './processes.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
export const HOST_CLI = join(dirname(require.resolve('@toolhost/host/package.json')), 'dist', 'cli.js');
const PEER_CLI = join(
  dirname(require.resolve('@ivotoby/openapi-mcp-server/package.json')),
  'bin',
  'mcp-server.js',
);
const BARE = join(HERE, 'bare-server.mjs');
// The bearer token every path sends; bare-server.mjs has the same one written in.
const TOKEN = 'bench-token';
// The plugin that serves the measured tool, for the one-plugin cold start and the embedding.
const ONE_PLUGIN = '@toolhost/plugin-crm-events';

/** @typedef {import('@toolhost/host').HostConfig} HostConfig */
/** @typedef {HostConfig['mcp']} McpSettings */
/** @typedef {import('./rounds.mjs').Subject} Subject */
/**
 * @typedef {object} Connection A connected MCP server (stdio or HTTP), as mcpSubject measures it.
 * @property {import('@modelcontextprotocol/sdk/client/index.js').Client | import('@modelcontextprotocol/client').Client} client
 * @property {{ tools: { name: string }[] }} list
 * @property {number | null | undefined} pid
 */
/**
 * @typedef {object} Server How one measured server starts and which call it is measured by.
 * @property {string} label
 * @property {string[]} stdio
 * @property {(port: number) => string[]} http
 * @property {{ name: string | undefined, arguments: Record<string, unknown> }} call
 */

/** Starts upstream.mjs in its own process, so that its work is not the bench's CPU time. */
export async function startUpstream() {
  const child = track(
    spawn(process.execPath, [join(HERE, 'upstream.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (/** @type {Buffer} */ d) => resolve(Number(String(d).trim())));
    child.once('exit', () => reject(new Error('upstream exited')));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill() };
}

// The plugin of each tool set the bench points at the upstream. The host refuses settings
// for a tool set no loaded plugin provides, so a run with some plugins sets only theirs.
const PLUGIN_OF = { CrmEventsApi: ONE_PLUGIN, GridApi: '@toolhost/plugin-grid' };
/** The auth provider each of those tool sets calls with. */
const PROVIDER_OF = { CrmEventsApi: 'crm-auth-provider', GridApi: 'grid-auth-provider' };

// The host's options, the same in its config file and in the embedding API; without
// `plugins` the host loads every installed plugin.
// Both run unpaced: the bench measures the host's own cost, not the vendors' rate limits
// (HubSpot's 9 a second per connection would hold every round back). GridApi points at the
// upstream too: its table listing fetches the large bodies.
/**
 * @param {string} upstream
 * @param {string[]} [plugins]
 * @param {McpSettings} [mcp]
 * @returns {HostConfig}
 */
export function hostOptions(upstream, plugins, mcp) {
  /** @type {Record<keyof typeof PLUGIN_OF, import('@toolhost/host').ToolSetConfig>} */
  const toolSets = {
    CrmEventsApi: { baseUrl: upstream, pacing: false },
    GridApi: { baseUrl: upstream, pacing: false },
  };
  const loaded = (/** @type {keyof typeof PLUGIN_OF} */ set) => !plugins || plugins.includes(PLUGIN_OF[set]);
  return {
    ...(plugins ? { plugins } : {}),
    toolSets: Object.fromEntries(
      Object.entries(toolSets).filter(([set]) => loaded(/** @type {keyof typeof PLUGIN_OF} */ (set))),
    ),
    // Only the providers a loaded plugin uses: the host refuses a provider no tool uses.
    auth: {
      providers: Object.fromEntries(
        Object.entries(PROVIDER_OF)
          .filter(([set]) => loaded(/** @type {keyof typeof PLUGIN_OF} */ (set)))
          .map(([, provider]) => [provider, { token: TOKEN }]),
      ),
    },
    // The static catalog unless a subject says otherwise: `auto` would list the dynamic one
    // with every plugin, and the bench compares listings and calls as the static catalog has them.
    mcp: { catalog: 'static', ...mcp },
  };
}

/**
 * The host's config file for a run (in the scratch folder): hostOptions, as JSON.
 * @param {string} upstream
 * @param {string[]} [plugins]
 * @param {McpSettings} [mcp]
 */
export function hostConfig(upstream, plugins, mcp) {
  const dir = mkdtempSync(join(SCRATCH_DIR, 'config-'));
  const file = join(dir, 'toolhost.config.json');
  writeFileSync(file, JSON.stringify(hostOptions(upstream, plugins, mcp)));
  return file;
}

/** The host over stdio with every (or the given) plugins, and `mcp` settings (catalog, budget). */
/** @type {(upstream: string, plugins?: string[], mcp?: McpSettings) => string[]} */
export const hostStdio = (upstream, plugins, mcp) => [
  HOST_CLI,
  '--config',
  hostConfig(upstream, plugins, mcp),
  'serve',
  '--stdio',
];

export const BARE_SERVER = BARE;

/** @param {string} upstream */
function peerArgs(upstream) {
  return [
    PEER_CLI,
    '--api-base-url',
    upstream,
    '--openapi-spec',
    join(HERE, 'peer-openapi.json'),
    '--headers',
    `Authorization:Bearer ${TOKEN}`,
    '--name',
    'peer',
  ];
}

/**
 * The host whose command is `cli` (this workspace's unless another checkout's is given), with
 * every plugin it finds, measured by one of the calls of the tool set the upstream answers.
 * @param {string} cli
 * @param {string} upstream
 * @returns {Server}
 */
export function hostServer(cli, upstream) {
  const config = hostConfig(upstream);
  return {
    label: 'toolhost',
    stdio: [cli, '--config', config, 'serve', '--stdio'],
    http: (port) => [cli, '--config', config, 'serve', '--http', String(port)],
    call: {
      name: 'CrmEventsApi_RetrieveCustomEventDefinitions',
      arguments: { results_per_page_limit: 10 },
    },
  };
}

/** The servers measured; each knows how to start over stdio or HTTP and which call to make. */
/**
 * @param {string} upstream
 * @returns {{ bare: Server, host: Server, peer: Server }}
 */
export function servers(upstream) {
  return {
    bare: {
      label: 'bare MCP SDK server (floor)',
      stdio: [BARE, upstream],
      http: (port) => [BARE, upstream, '--http', String(port)],
      call: { name: 'list_event_definitions', arguments: { limit: 10 } },
    },
    host: hostServer(HOST_CLI, upstream),
    peer: {
      label: 'peer: @ivotoby/openapi-mcp-server',
      stdio: peerArgs(upstream),
      http: (port) => [
        ...peerArgs(upstream),
        '--transport',
        'http',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
      ],
      call: { name: undefined, arguments: { limit: 10 } },
    },
  };
}

/**
 * The stdio arguments timed for cold start; the host both with every plugin and with one, and
 * the bare server listing the host's tools (all plugins) too: the catalog's own cost.
 * @param {ReturnType<typeof servers>} S
 * @param {string} upstream
 * @param {{ name: string }[]} hostTools
 */
export function coldStartArgs(S, upstream, hostTools) {
  return {
    hostAllPlugins: S.host.stdio,
    hostDefault: hostStdio(upstream, undefined, { catalog: 'auto' }),
    hostOnePlugin: hostStdio(upstream, [ONE_PLUGIN]),
    bare: S.bare.stdio,
    bareHostCatalog: [...S.bare.stdio, '--list', toolsFile(hostTools)],
    peer: S.peer.stdio,
  };
}

/** @param {{ name: string }[]} tools */
function toolsFile(tools) {
  const file = join(mkdtempSync(join(SCRATCH_DIR, 'tools-')), 'tools.json');
  writeFileSync(file, JSON.stringify(tools));
  return file;
}

/**
 * A measured subject ({key, call, cpu}) for a connected server. The peer names its tool after
 * the spec, so a call without a name takes the first listed tool.
 * @template {string} K
 * @param {K} key
 * @param {Connection} conn
 * @param {Server['call']} call
 * @returns {Subject & { key: K }}
 */
export function mcpSubject(key, conn, call) {
  const name = call.name ?? conn.list.tools[0]?.name;
  if (name === undefined) throw new Error(`${key} lists no tool`);
  const params = { name, arguments: call.arguments };
  return {
    key,
    cpu: () => processCpuMs(conn.pid),
    call: async () => {
      const r = await conn.client.callTool(params);
      if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content).slice(0, 300)}`);
    },
  };
}

// The direct call and the embedded host run in this process, so their CPU time is its own.
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The baseline: the same GET the servers make, with axios from this process. */
/**
 * @param {string} upstream
 * @returns {Subject & { key: 'direct' }}
 */
export function directSubject(upstream) {
  const directAxios = axios.create();
  const directUrl = `${upstream}/events/v3/event-definitions`;
  return {
    key: 'direct',
    cpu: selfCpu,
    call: async () => {
      await directAxios.get(directUrl, {
        params: { limit: 10 },
        headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` },
      });
    },
  };
}

/** The host through its in-process embedding API (no transport), with the one plugin. */
/** @param {string} upstream */
export async function embeddedSubject(upstream) {
  const { createHost } = await import('@toolhost/host');
  const host = await createHost(hostOptions(upstream, [ONE_PLUGIN]));
  return {
    key: /** @type {const} */ ('host'),
    cpu: selfCpu,
    call: async () => {
      const outcome = await host.callTool('CrmEventsApi.RetrieveCustomEventDefinitions', {
        results_per_page_limit: 10,
      });
      if (!outcome.ok) throw new Error(outcome.error.message);
    },
    close: () => host.close(),
  };
}
