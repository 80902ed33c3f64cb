// biome-ignore-all lint/suspicious/noTemplateCurlyInString: MCP Bundle templates, written literally
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type RecordingUpstream, startRecordingUpstream } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmEnv, root } from './pack-workspace.js';

// The package's command (its exports map names only the library): dist/cli/cli.js beside dist/index.js.
const mcpb = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');

interface Manifest {
  version: string;
  server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
}

let unpacked: string;
let manifest: Manifest;

beforeAll(() => {
  // As the README says to before the first release: the clone's own packages, packed.
  const out = join(mkdtempSync(join(tmpdir(), 'toolhost-bundle-')), 'toolhost.mcpb');
  // Its npm install takes the third-party dependencies from the run's mirror (npmEnv).
  execFileSync(process.execPath, [join(root, 'scripts/build-mcpb.mjs'), out, '--from-clone'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: npmEnv(),
  });
  unpacked = mkdtempSync(join(tmpdir(), 'toolhost-bundle-unpacked-'));
  execFileSync(process.execPath, [mcpb, 'unpack', out, unpacked], { stdio: 'ignore' });
  manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
}, 300_000);

/** The recording upstream standing in for every vendor: the tool sets' base URLs, from a config file in the working directory. */
let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
});
afterAll(() => upstream?.close());

/**
 * The host started from the bundle as Claude Desktop starts it: the command and environment
 * the official substitution (`getMcpConfigForManifest`) makes of the manifest and the fields
 * the person filled in.
 */
async function startFromBundle(userConfig: Record<string, string>, given: Manifest = manifest) {
  const config = await getMcpConfigForManifest({
    manifest: given as unknown as McpbManifestAny,
    extensionPath: unpacked,
    systemDirs: {},
    userConfig,
    pathSeparator: '/',
  });
  if (!config) throw new Error('the manifest gave no MCP config');
  const { command, args = [], env = {} } = config;
  expect(command).toBe('node');
  const cwd = mkdtempSync(join(tmpdir(), 'toolhost-desktop-'));
  const toolSets = Object.fromEntries(
    ['CrmEventsApi', 'CrmAutomationApi', 'CrmMarketingApi', 'GridApi', 'CdpPipelinesApi'].map((s) => [
      s,
      { baseUrl: upstream.url, pacing: false },
    ]),
  );
  writeFileSync(join(cwd, 'toolhost.config.json'), JSON.stringify({ toolSets }));
  const transport = new StdioClientTransport({
    // Claude Desktop runs `node` with its own Node; the test runs this one.
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? '', ...env },
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'bundle-test', version: '0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    JSON.stringify(await client.callTool({ name: 'call_tool', arguments: { name, arguments: args } }));
  return { client, env, call, stderr: () => stderr };
}

describe('the MCP Bundle', () => {
  it('carries a manifest the official tool validates, at the distribution’s version', () => {
    const distribution = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as {
      version: string;
    };
    expect(manifest.version).toBe(distribution.version);
    const out = execFileSync(process.execPath, [mcpb, 'validate', join(unpacked, 'manifest.json')], {
      encoding: 'utf8',
    });
    expect(out).toContain('Manifest schema validation passes');
  });

  it('starts from its manifest as Claude Desktop does and serves the tools of the five plugins', async () => {
    const { client } = await startFromBundle({ hubspot_token: 'hs-bundle-token' });
    try {
      // Over the limit the default catalog is dynamic: the discovery tools are listed,
      // and a search finds the tools of each vendor's plugins.
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['search_tools', 'describe_tools', 'call_tool']),
      );
      const found = async (query: string) =>
        JSON.stringify(await client.callTool({ name: 'search_tools', arguments: { query } }));
      expect(await found('list the records of an Airtable table')).toContain('GridApi');
      expect(await found('list HubSpot custom event definitions')).toContain('CrmEventsApi');
      expect(await found('HubSpot marketing campaigns')).toContain('CrmMarketingApi');
      expect(await found('Customer.io identify a person')).toContain('CdpPipelinesApi');
      expect(await found('HubSpot workflows and sequences')).toContain('CrmAutomationApi');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('given some fields, sends the ones given and names the bundle’s field for the rest; no placeholder leaves', async () => {
    upstream.reset();
    const { client, env, call } = await startFromBundle({ hubspot_token: 'hs-bundle-token' });
    try {
      // The optional fields default to empty: the substitution leaves no template behind.
      expect(Object.values(env).join(' ')).not.toContain('${');
      expect(await call('CrmEventsApi.ListEventTypes')).not.toContain('"isError":true');
      expect(await call('GridApi.ListGridBases')).toContain("fill in the extension's “Airtable token” field");
      expect(await call('CrmAutomationApi.GetUserSequences')).toContain(
        "fill in the extension's “HubSpot user id” field",
      );
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.headers.authorization).toBe('Bearer hs-bundle-token');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('sends the HubSpot user id field as CrmAutomationApi’s userId', async () => {
    upstream.reset();
    const { client, call } = await startFromBundle({
      hubspot_token: 'hs-bundle-token',
      hubspot_user_id: '4321',
    });
    try {
      expect(await call('CrmAutomationApi.GetUserSequences')).not.toContain('"isError":true');
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.query).toContainEqual(['userId', '4321']);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('takes a template no client filled in as unset, warning with the field’s name', async () => {
    upstream.reset();
    // A client that applies no defaults leaves an unfilled optional field's template as it is.
    const withoutDefaults = JSON.parse(JSON.stringify(manifest)) as Manifest & {
      user_config: Record<string, { default?: string }>;
    };
    for (const field of Object.values(withoutDefaults.user_config)) delete field.default;
    const { client, env, call, stderr } = await startFromBundle(
      { hubspot_token: 'hs-bundle-token' },
      withoutDefaults,
    );
    try {
      expect(env.GRID_AUTH_PROVIDER_TOKEN).toBe('${user_config.airtable_token}');
      expect(await call('GridApi.ListGridBases')).toContain("fill in the extension's “Airtable token” field");
      expect(await call('CrmEventsApi.ListEventTypes')).not.toContain('"isError":true');
      expect(stderr()).toContain('GRID_AUTH_PROVIDER_TOKEN is the unfilled placeholder');
      expect(stderr()).toContain('“Airtable token”');
      for (const req of upstream.requests) expect(JSON.stringify(req)).not.toContain('${');
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
