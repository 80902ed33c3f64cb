import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { packWorkspace, publishedPackages, root } from './pack-workspace.js';

// The package's command (its exports map names only the library): dist/cli/cli.js beside dist/index.js.
const mcpb = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');

interface Manifest {
  version: string;
  server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
}

let unpacked: string;
let manifest: Manifest;

beforeAll(() => {
  const tarballs = packWorkspace(publishedPackages().filter((p) => p !== 'testing'));
  const out = join(mkdtempSync(join(tmpdir(), 'toolhost-bundle-')), 'toolhost.mcpb');
  execFileSync(process.execPath, [join(root, 'scripts/build-mcpb.mjs'), out, ...Object.values(tarballs)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  unpacked = mkdtempSync(join(tmpdir(), 'toolhost-bundle-unpacked-'));
  execFileSync(process.execPath, [mcpb, 'unpack', out, unpacked], { stdio: 'ignore' });
  manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
}, 300_000);

/** `${__dirname}` and `${user_config.<key>}` replaced as Claude Desktop replaces them. */
function substitute(value: string, userConfig: Record<string, string>): string {
  return value
    .replace(/\$\{__dirname\}/g, unpacked)
    .replace(/\$\{user_config\.([a-z_]+)\}/g, (_m, key: string) => userConfig[key] ?? '');
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
    const userConfig = { hubspot_token: 'hs-bundle-token' };
    const { command, args, env } = manifest.server.mcp_config;
    expect(command).toBe('node');
    const transport = new StdioClientTransport({
      // Claude Desktop runs `node` with its own Node; the test runs this one.
      command: process.execPath,
      args: args.map((a) => substitute(a, userConfig)),
      env: {
        PATH: process.env.PATH ?? '',
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, substitute(v, userConfig)])),
      },
      cwd: mkdtempSync(join(tmpdir(), 'toolhost-desktop-')),
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bundle-test', version: '0' });
    await client.connect(transport);
    try {
      // Over 100 tools the default catalog is dynamic: the three discovery tools are listed,
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
});
