import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { pluginToolsOf, type RecordingUpstream, startRecordingUpstream } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The README's client set-up, tried as the clients do it: each JSON block's command, arguments
// and environment start the host, and the MCP Inspector's command line drives it.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Connecting clients'), readme.indexOf('## Configuration'));
const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as ClientConfig);
// `toolhost` on the PATH, as after a global install: the link this repository's install makes.
const PATH = [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter);
// The entries run `npx -y @toolhost/server …`: npx installs the distribution, then runs its
// command with the rest of the arguments. Here that command is the workspace's distribution, as
// npx runs it once installed (installing it from a registry is local-registry.test.ts's).
const NPX_PACKAGE = ['-y', '@toolhost/server'];
const distributionCommand = join(root, 'packages', 'server', 'bin', 'toolhost.js');

type ServerEntry = { command: string; args: string[]; env?: Record<string, string>; type?: string };
type ClientConfig = { mcpServers?: Record<string, ServerEntry>; servers?: Record<string, ServerEntry> };

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { results: [] } }));
});
afterAll(() => upstream.close());

describe('the README client configurations', () => {
  it('has the blocks of Claude Desktop, VS Code and Cursor', () => {
    expect(blocks).toHaveLength(3);
  });

  it.each(blocks.map((b, i) => [i, b] as const))(
    'block %i starts a host that lists its tools',
    async (_i, block) => {
      const entry = (block.mcpServers ?? block.servers)!.toolhost!;
      expect(entry.command).toBe('npx');
      expect(entry.args.slice(0, 2)).toEqual(NPX_PACKAGE);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [distributionCommand, ...entry.args.slice(2)],
        env: { ...entry.env, PATH },
        cwd: mkdtempSync(join(tmpdir(), 'toolhost-client-')),
        stderr: 'ignore',
      });
      const client = new Client({ name: 'readme-client', version: '1.0.0' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      await client.close();
      expect(tools.length).toBeGreaterThan(0);
      if (entry.args.includes('--read-only'))
        expect(tools.every((t) => t.annotations?.readOnlyHint)).toBe(true);
      const only = entry.args[entry.args.indexOf('--tool-sets') + 1];
      if (entry.args.includes('--tool-sets'))
        expect(pluginToolsOf(tools).every((t) => t.name.startsWith(`${only}_`))).toBe(true);
    },
  );
});

describe('the MCP Inspector command line', () => {
  it('calls a tool of the host the README way', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'toolhost-inspector-')), 'toolhost.config.json');
    writeFileSync(config, JSON.stringify({ toolSets: { CrmEventsApi: { baseUrl: upstream.url } } }));
    const { stdout } = await promisify(execFile)(
      join(here, 'node_modules', '.bin', 'mcp-inspector'),
      [
        '--cli',
        '-e',
        'CRM_AUTH_PROVIDER_TOKEN=inspector-token-1',
        '-e',
        'TOOLHOST_CATALOG=static',
        '-e',
        `TOOLHOST_CONFIG=${config}`,
        '-e',
        `PATH=${PATH}`,
        process.execPath,
        distributionCommand,
        'serve',
        '--stdio',
        '--method',
        'tools/call',
        '--tool-name',
        'CrmEventsApi_ListEventTypes',
      ],
      { env: { PATH, HOME: tmpdir(), MCP_CATALOG_PATH: join(tmpdir(), `inspector-${process.pid}.json`) } },
    );
    const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({ method: 'GET', path: '/events/v3/events/event-types' });
    expect(upstream.requests[0]!.headers.authorization).toBe('Bearer inspector-token-1');
  }, 60_000);
});
