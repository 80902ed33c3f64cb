import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
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
import { fixtureApp, inlinePlugin, postInitialize, readTool } from './support.js';

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

  async function clientWith(headers: Record<string, string>, name = 'narrowing-test') {
    const client = new Client({ name, version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
    );
    return client;
  }

  /** A client whose requests carry each of `repeated`'s headers once per value, as separate lines. */
  async function clientRepeating(repeated: Record<string, string[]>) {
    const client = new Client({ name: 'narrowing-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { fetch: fetchRepeating(repeated) }),
    );
    return client;
  }

  const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

  it("one client's X-MCP-Tools: * never changes what an un-narrowed client lists", async () => {
    // Both are clients that defer tools themselves: the static listing, not the configured form.
    const star = await clientWith({ 'X-MCP-Tools': '*', 'X-MCP-Catalog': 'static' }, 'claude-code');
    expect(await names(star)).toEqual([]);
    const plain = await clientWith({}, 'claude-code');
    expect(await names(plain)).toHaveLength(AUTO_CATALOG_MAX_TOOLS + 1);
    expect(await names(plain)).toContain('Small_GetThing');
    await star.close();
    await plain.close();
  });

  it('repeated X-MCP-Toolsets and X-MCP-Tools narrow by every occurrence', async () => {
    const sets = await clientRepeating({ 'X-MCP-Toolsets': ['Small', 'Big'] });
    expect(await names(sets)).toEqual([]);
    await sets.close();
    const tools = await clientRepeating({ 'X-MCP-Tools': ['Small_GetThing,Big_Get1', 'Big_Get1, Big_Get2'] });
    expect(await names(tools)).toEqual(['Big_Get1']);
    await expect(tools.callTool({ name: 'Small_GetThing', arguments: {} })).rejects.toThrow(/x-mcp-tools/i);
    await tools.close();
  });

  it('repeated headers narrow by every occurrence on 2026-07-28 requests too', async () => {
    const client = new ModernClient({ name: 'v2', version: '0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new ModernTransport(new URL(server.url), {
        fetch: fetchRepeating({ 'X-MCP-Tools': ['Small_GetThing,Big_Get1', 'Big_Get1'] }),
      }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Big_Get1']);
    await client.close();
  });

  it('repeated X-MCP-Readonly is read-only when any occurrence asks for it', async () => {
    const client = await clientRepeating({
      'X-MCP-Readonly': ['false', 'true'],
      'X-MCP-Toolsets': ['Small'],
    });
    expect(await names(client)).toEqual(['Small_GetThing']);
    await client.close();
  });

  it('lists only the tool sets X-MCP-Toolsets names, statically once they fit', async () => {
    const client = await clientWith({ 'X-MCP-Toolsets': 'Small' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Small_GetThing']);
    expect(client.getInstructions()).not.toMatch(/search_tools/);
    await client.close();
  });

  /** An initialize POST carrying `toolSets` as its X-MCP-Toolsets header: the status, session id and error. */
  async function initializeNarrowedTo(toolSets: string) {
    const res = await postInitialize(server.url, { headers: { 'X-MCP-Toolsets': toolSets } });
    const body = (await res.json()) as { id: unknown; error?: { code: number; message: string } };
    return { status: res.status, session: res.headers.get('mcp-session-id'), id: body.id, error: body.error };
  }

  it('refuses an X-MCP-Toolsets naming no served tool set at initialize, opening nothing', async () => {
    const answer = await initializeNarrowedTo('Smal');
    expect(answer).toMatchObject({ status: 400, session: null, id: 1, error: { code: -32600 } });
    expect(answer.error?.message).toBe(
      "X-MCP-Toolsets: 'Smal' is not a tool set this host serves (served: Big, Small). Did you mean Small?",
    );
    const client = new Client({ name: 'typo', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { 'X-MCP-Toolsets': 'Smal' } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/X-MCP-Toolsets: 'Smal'/);
  });

  it('refuses a served tool set beside an unknown one too, naming only the unknown', async () => {
    const answer = await initializeNarrowedTo('Small, Nope,Nada');
    expect(answer).toMatchObject({ status: 400, session: null });
    expect(answer.error?.message).toBe(
      "X-MCP-Toolsets: 'Nope', 'Nada' are not tool sets this host serves (served: Big, Small).",
    );
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

/**
 * Fetch over node:http, sending each of `repeated`'s headers as one line per value: the Fetch
 * API would join them into one line, which a server cannot tell from one list.
 */
function fetchRepeating(repeated: Record<string, string[]>): typeof fetch {
  return (input, init) =>
    new Promise((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const req = httpRequest(url, { method: init?.method ?? 'GET' }, (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          for (const v of [value ?? []].flat()) headers.append(name, v);
        const status = res.statusCode ?? 500;
        const body = [204, 205, 304].includes(status) ? null : (Readable.toWeb(res) as WebStream);
        resolve(new Response(body as ConstructorParameters<typeof Response>[0], { status, headers }));
      });
      for (const [name, value] of new Headers(init?.headers)) req.setHeader(name, value);
      for (const [name, values] of Object.entries(repeated)) req.setHeader(name, values);
      init?.signal?.addEventListener('abort', () => req.destroy());
      req.on('error', reject);
      req.end(typeof init?.body === 'string' ? init.body : undefined);
    });
}
