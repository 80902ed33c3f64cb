import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { AUTO_CATALOG_MAX_TOOLS } from '../src/mcp/catalog-views.js';
import { createMcpServer } from '../src/mcp/create-mcp-server.js';
import { prepareMcpServingState } from '../src/mcp/serving-state.js';
import { fixtureApp, inlinePlugin, readTool } from './support.js';

const write = (name: string): ToolDeclaration => ({
  name,
  description: `Writes ${name}.`,
  method: 'POST',
  path: `/${name}`,
  auth: { kind: 'none' },
  body: { kind: 'fields' },
});

// Small: a read and a write. Big: more read tools than `auto` lists as they are.
const small = inlinePlugin('Small', [readTool('GetThing'), write('SetThing')]);
const big = inlinePlugin(
  'Big',
  Array.from({ length: AUTO_CATALOG_MAX_TOOLS }, (_, i) => readTool(`Get${i}`)),
);

async function hostWith(plugins: (typeof small)[], config: HostConfig = {}): Promise<Host> {
  return createHost(config, { configDir: fixtureApp, plugins, env: {} });
}

async function listedNames(host: Host): Promise<string[]> {
  const server = createMcpServer(host, prepareMcpServingState(host));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'auto-test', version: '0.0.0' });
  await server.connect(a);
  await client.connect(b);
  const names = (await client.listTools()).tools.map((t) => t.name);
  await client.close();
  return names;
}

describe('--catalog auto, the default', () => {
  it(`lists every tool while the listing stays within ${AUTO_CATALOG_MAX_TOOLS}`, async () => {
    const host = await hostWith([small]);
    expect(host.config.mcp.catalog).toBe('auto');
    expect((await listedNames(host)).sort()).toEqual(
      ['Small_GetThing', 'Small_SetThing', 'apply_preview', 'preview_tool_call'].sort(),
    );
    await host.close();
  });

  it('lists the discovery tools above it', async () => {
    const host = await hostWith([small, big]);
    expect((await listedNames(host)).sort()).toEqual(
      ['apply_preview', 'call_tool', 'describe_tools', 'preview_tool_call', 'search_tools'].sort(),
    );
    await host.close();
  });

  it('lists every tool when the operator says static, however many', async () => {
    const host = await hostWith([small, big], { mcp: { catalog: 'static' } });
    expect(await listedNames(host)).toHaveLength(AUTO_CATALOG_MAX_TOOLS + 4);
    await host.close();
  });
});

describe('per-request narrowing over HTTP', () => {
  let host: Host;
  let server: HttpServerHandle;
  beforeAll(async () => {
    // The operator hides Small.SetThing; no header can bring it back.
    host = await hostWith([small, big], { tools: { deny: ['Small.SetThing'] } });
    server = await serveHttp(host, { port: 0 });
  });
  afterAll(async () => {
    await host?.close();
    await server?.close();
  });

  async function clientWith(headers: Record<string, string>) {
    const client = new Client({ name: 'narrowing-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
    );
    return client;
  }

  it('lists only the tool sets X-MCP-Toolsets names, statically once they fit', async () => {
    const client = await clientWith({ 'X-MCP-Toolsets': 'Small' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Small_GetThing']);
    expect(client.getInstructions()).not.toMatch(/search_tools/);
    await client.close();
  });

  it('without headers, lists the whole (dynamic) catalog', async () => {
    const client = await clientWith({});
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_tools');
    await client.close();
  });

  it('never widens: X-MCP-Tools naming a denied tool does not list or run it', async () => {
    const client = await clientWith({ 'X-MCP-Tools': 'Small_SetThing,Small.GetThing,Big_Get1' });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'Big_Get1',
      'Small_GetThing',
    ]);
    await expect(client.callTool({ name: 'Small_SetThing', arguments: {} })).rejects.toThrow(
      /hidden|No tool/,
    );
    await client.close();
  });

  it('refuses a call outside the narrowing, naming the headers', async () => {
    const client = await clientWith({ 'X-MCP-Toolsets': 'Small', 'X-MCP-Readonly': 'true' });
    await expect(client.callTool({ name: 'Big_Get1', arguments: {} })).rejects.toThrow(/X-MCP|x-mcp/i);
    await client.close();
  });

  it('X-MCP-Readonly lists only read-only tools and no write previews', async () => {
    const client = await clientWith({ 'X-MCP-Readonly': '1', 'X-MCP-Toolsets': 'Small' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Small_GetThing']);
    await client.close();
  });
});
