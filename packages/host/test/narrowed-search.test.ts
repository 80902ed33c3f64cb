import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ToolDeclaration } from '@toolhost/core';
import { ToolIndex } from '@toolhost/search';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { inProcessCatalog } from '../src/in-process-catalog.js';
import { fixtureApp, inlinePlugin, readTool } from './support.js';

const widgetId = {
  name: 'widget_id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Widget id.',
} as const;
const widgets: ToolDeclaration[] = [
  { ...readTool('ListWidgets'), description: 'Lists the widgets.', path: '/widgets' },
  {
    ...readTool('GetWidget'),
    description: 'Reads one widget.',
    path: '/widgets/{widget_id}',
    params: [widgetId],
  },
  {
    name: 'DeleteWidget',
    description: 'Deletes one widget.',
    method: 'DELETE',
    path: '/widgets/{widget_id}',
    auth: { kind: 'none' },
    params: [widgetId],
  },
  ...Array.from({ length: 20 }, (_, i) => readTool(`GetGadget${i}`)),
];

let host: Host;
let server: HttpServerHandle;
beforeAll(async () => {
  host = await createHost(
    { mcp: { catalog: 'dynamic' } },
    { configDir: fixtureApp, plugins: [inlinePlugin('Shop', widgets)], env: {} },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
});

/** search_tools from a client whose requests carry `X-MCP-Tools: tools`. */
async function searchNarrowed(tools: string[], query: string): Promise<string> {
  const client = new Client({ name: 'narrowed', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { 'X-MCP-Tools': tools.join(',') } },
    }),
  );
  const result = await client.callTool({ name: 'search_tools', arguments: { query } });
  await client.close();
  return (result.content as { text: string }[])[0]!.text;
}

/** How many indexes `fn` searched, told apart by identity. */
async function indexesSearchedBy(fn: () => Promise<void>): Promise<number> {
  const searched = new Set<ToolIndex>();
  const search = ToolIndex.prototype.search;
  ToolIndex.prototype.search = function (this: ToolIndex, ...args) {
    searched.add(this);
    return search.apply(this, args);
  };
  try {
    await fn();
  } finally {
    ToolIndex.prototype.search = search;
  }
  return searched.size;
}

describe('search_tools in catalogs narrowed per request', () => {
  it('searches one index, however many narrowings clients send', async () => {
    // Each index held megabytes, and clients choose the narrowings (the views kept are bounded
    // by number, not by what each holds).
    const searched = await indexesSearchedBy(async () => {
      for (let i = 0; i < 12; i += 1)
        await searchNarrowed(['Shop_GetWidget', `Shop_GetGadget${i}`], 'read one widget');
      await searchNarrowed([], 'read one widget');
    });
    expect(searched).toBe(1);
  });

  it('answers only the tools of the view, and compares them only with tools in it', async () => {
    const text = await searchNarrowed(['Shop_GetWidget', 'Shop_ListWidgets'], 'read one widget');
    const found = (JSON.parse(text) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((n) => n === 'Shop_GetWidget' || n === 'Shop_ListWidgets')).toBe(true);
    // GetWidget's nearest sibling in the whole catalog is DeleteWidget: a note naming it would
    // send the agent to a tool this client cannot call.
    expect(text).toContain('"differs"');
    expect(text).not.toContain('DeleteWidget');
  });
});

describe('search_tools of in-process adapters (AI SDK, LangChain, OpenAI Agents)', () => {
  it("searches the host's one index, however many adapters an application makes", async () => {
    // An application may make its tools per request: each built an index of its own.
    const searched = await indexesSearchedBy(async () => {
      for (const only of [undefined, ['Shop.GetWidget', 'Shop.ListWidgets'], undefined, ['Shop.Get*']]) {
        const tools = inProcessCatalog(host, { catalog: 'dynamic', ...(only && { only }) });
        const answer = await tools.find((t) => t.name === 'search_tools')!.call({ query: 'read one widget' });
        const found = (answer.value as { tools: { name: string }[] }).tools.map((t) => t.name);
        expect(found).toContain('Shop_GetWidget');
        if (only) expect(found).not.toContain('Shop_DeleteWidget');
      }
    });
    expect(searched).toBe(1);
  });
});
