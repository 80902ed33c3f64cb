import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import {
  Agent,
  getAllMcpTools,
  type MCPServer,
  MCPServerStdio,
  MCPServerStreamableHttp,
  RunContext,
} from '@openai/agents-core';
import { createHost, type Host, type HostConfig, type HttpServerHandle, serveHttp } from '@toolhost/host';
import { tools as aiSdkTools } from '@toolhost/host/ai-sdk';
import { hostCliPath, type RecordingUpstream, startRecordingUpstream } from '@toolhost/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allPluginsRegistry, pluginPackages, toolSetsAt } from '../src/plugins.js';

// The agent frameworks people build on, driven with their own npm packages up to where a model
// would be called: each lists the host's tools as its own tool objects (through its own schema
// conversion) and runs one through its own execute function, against a loopback upstream.
const TOOL = 'CrmEventsApi_ListEventTypes';
const TOKENS = {
  CRM_AUTH_PROVIDER_TOKEN: 'framework-token-1',
  GRID_AUTH_PROVIDER_TOKEN: 'framework-token-2',
  CDP_API_KEY: 'framework-key',
};

let upstream: RecordingUpstream;
let config: HostConfig;
let configFile: string;
let host: Host;
let http: HttpServerHandle;
let listedCount: number;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  config = {
    plugins: pluginPackages(),
    toolSets: toolSetsAt(await allPluginsRegistry(), upstream.url, { pacing: false as const }),
    // Every tool, so that each framework converts every listed schema.
    mcp: { catalog: 'static' },
  };
  configFile = join(mkdtempSync(join(tmpdir(), 'toolhost-frameworks-')), 'toolhost.config.json');
  writeFileSync(configFile, JSON.stringify(config));
  host = await createHost(config, { env: TOKENS });
  http = await serveHttp(host, { port: 0 });
  listedCount = host.listTools().length + 2; // the tools and the two preview tools
});
afterAll(async () => {
  await host?.close();
  await http?.close();
  await upstream?.close();
});
beforeEach(() => upstream.reset());

const stdio = () => ({
  command: process.execPath,
  args: [hostCliPath(), '--config', configFile, 'serve', '--stdio'],
  env: { PATH: process.env.PATH ?? '', ...TOKENS },
});

/** The one request the executed tool must have sent. */
function expectListEventTypesSent() {
  expect(upstream.requests).toHaveLength(1);
  expect(upstream.requests[0]).toMatchObject({ method: 'GET', path: '/events/v3/events/event-types' });
  expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${TOKENS.CRM_AUTH_PROVIDER_TOKEN}`);
}

describe.each(['stdio', 'http'] as const)('over %s', (transport) => {
  it('the Vercel AI SDK (@ai-sdk/mcp) lists every tool and executes one', async () => {
    const s = stdio();
    const client = await createMCPClient({
      transport:
        transport === 'stdio'
          ? new Experimental_StdioMCPTransport({ command: s.command, args: s.args, env: s.env })
          : { type: 'http', url: http.url },
    });
    try {
      const tools = await client.tools();
      expect(Object.keys(tools)).toHaveLength(listedCount);
      const output = await tools[TOOL]!.execute!({}, { toolCallId: 'call-1', messages: [], context: {} });
      expect(JSON.stringify(output)).toContain('ok');
      expectListEventTypesSent();
    } finally {
      await client.close();
    }
  });

  it('LangChain.js (@langchain/mcp-adapters) lists every tool and invokes one', async () => {
    const s = stdio();
    const client = new MultiServerMCPClient({
      mcpServers: {
        toolhost:
          transport === 'stdio'
            ? { transport: 'stdio', command: s.command, args: s.args, env: s.env }
            : { transport: 'http', url: http.url },
      },
      throwOnLoadError: true,
    });
    try {
      const tools = await client.getTools();
      expect(tools).toHaveLength(listedCount);
      const tool = tools.find((t) => t.name.endsWith(TOOL));
      expect(tool, TOOL).toBeDefined();
      const output = await tool!.invoke({});
      expect(JSON.stringify(output)).toContain('ok');
      expectListEventTypesSent();
    } finally {
      await client.close();
    }
  });

  it('the OpenAI Agents SDK lists every tool, strict where it can be, and invokes one', async () => {
    const s = stdio();
    const server: MCPServer =
      transport === 'stdio'
        ? // The SDK waits 5 s for each answer by default: the spawned host's start (~0.3 s idle)
          // takes over 5 s with both cores busy. 60 s is the margin a loaded machine needs.
          new MCPServerStdio({
            command: s.command,
            args: s.args,
            env: s.env,
            name: 'toolhost',
            clientSessionTimeoutSeconds: 60,
          })
        : new MCPServerStreamableHttp({ url: http.url, name: 'toolhost' });
    await server.connect();
    try {
      const agent = new Agent({ name: 'toolhost-test' });
      const tools = await getAllMcpTools({
        mcpServers: [server],
        runContext: new RunContext({}),
        agent,
        convertSchemasToStrict: true,
      });
      expect(tools).toHaveLength(listedCount);
      const tool = tools.find((t) => t.name === TOOL);
      expect(tool?.type).toBe('function');
      if (tool?.type !== 'function') throw new Error(`${TOOL} is not a function tool`);
      expect(tool.strict).toBe(true);
      const output = await tool.invoke(new RunContext({}), '{}');
      expect(JSON.stringify(output)).toContain('ok');
      expectListEventTypesSent();
    } finally {
      await server.close();
    }
  });
});

describe('in process, without MCP', () => {
  it('the Vercel AI SDK adapter gives every tool as an AI SDK tool and executes one', async () => {
    const tools = aiSdkTools(host);
    expect(Object.keys(tools)).toHaveLength(listedCount);
    const tool = tools[TOOL]!;
    expect(tool.description).toBe(host.getTool('CrmEventsApi.ListEventTypes')!.description);
    const output = await tool.execute!({}, { toolCallId: 'call-1', messages: [], context: {} });
    expect(output).toEqual({ ok: true });
    expectListEventTypesSent();
  });

  it('gives the discovery tools above the limit, as auto does over MCP, and they find and call a tool', async () => {
    const tools = aiSdkTools(host, { catalog: 'auto' });
    expect(Object.keys(tools).sort()).toEqual([
      'apply_preview',
      'call_tool',
      'describe_tools',
      'preview_tool_call',
      'search_tools',
    ]);
    const opts = { toolCallId: 'call-3', messages: [], context: {} };
    const found = (await tools.search_tools!.execute!({ query: 'list HubSpot event types' }, opts)) as {
      tools: { name: string }[];
    };
    expect(found.tools.map((t) => t.name)).toContain(TOOL);
    expect(await tools.call_tool!.execute!({ name: TOOL, arguments: {} }, opts)).toEqual({ ok: true });
    expectListEventTypesSent();
    // Within the limit, auto lists the tools themselves; `only` takes globs in either spelling.
    const few = aiSdkTools(host, { catalog: 'auto', only: ['GridApi.List*', 'CrmEventsApi_ListEventTypes'] });
    expect(Object.keys(few)).toContain(TOOL);
    expect(Object.keys(few)).toContain('GridApi_ListGridRecords');
    expect(Object.keys(few).every((n) => n === TOOL || n.startsWith('GridApi_List'))).toBe(true);
  });

  it('answers a refused call as the structured error a model can act on, sending nothing', async () => {
    const tools = aiSdkTools(host, { only: ['GridApi.ListGridRecords'] });
    expect(Object.keys(tools)).toEqual(['GridApi_ListGridRecords']);
    const output = await tools.GridApi_ListGridRecords!.execute!(
      {},
      { toolCallId: 'call-2', messages: [], context: {} },
    );
    expect(output).toMatchObject({ error: { code: 'invalid_argument' } });
    expect(upstream.requests).toHaveLength(0);
  });
});
