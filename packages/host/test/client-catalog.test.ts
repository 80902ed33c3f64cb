import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../src/config/host-config.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { AUTO_CATALOG_MAX_TOOLS } from '../src/mcp/catalog-views.js';
import { ALWAYS_LOAD_META_KEY, DEFERRING_CLIENTS } from '../src/mcp/client-catalog.js';
import { fixtureApp, inlinePlugin, readTool } from './support.js';

const write: ToolDeclaration = {
  name: 'SetThing',
  description: 'Writes a thing.',
  method: 'POST',
  path: '/thing',
  auth: { kind: 'none' },
  body: { kind: 'fields' },
};

// More tools than `auto` lists as they are: by count alone, the dynamic catalog.
const big = inlinePlugin('Big', [
  write,
  ...Array.from({ length: AUTO_CATALOG_MAX_TOOLS }, (_, i) => readTool(`Get${i}`)),
]);
const ALL_LISTED = AUTO_CATALOG_MAX_TOOLS + 1 + 2; // the tools and the two write previews
const DISCOVERY = ['apply_preview', 'call_tool', 'describe_tools', 'preview_tool_call', 'search_tools'];

async function serving(config: HostConfig = {}): Promise<{ host: Host; http: HttpServerHandle }> {
  const host = await createHost(config, { configDir: fixtureApp, plugins: [big], env: {} });
  return { host, http: await serveHttp(host, { port: 0 }) };
}

/** A v2 SDK client calling itself `name`, on the session era (initialize) or on 2026-07-28. */
async function clientNamed(
  http: HttpServerHandle,
  name: string,
  era: 'legacy' | 'modern' = 'legacy',
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers } }));
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

describe('--catalog auto, per client', () => {
  let host: Host;
  let http: HttpServerHandle;
  beforeAll(async () => ({ host, http } = await serving()));
  afterAll(async () => {
    await http?.close();
    await host?.close();
  });

  for (const { client, names: clientNames } of DEFERRING_CLIENTS) {
    for (const name of clientNames) {
      it(`lists every tool to ${client} (${name}), which defers tools itself`, async () => {
        for (const era of ['legacy', 'modern'] as const) {
          const c = await clientNamed(http, name, era);
          const listed = await names(c);
          expect(listed).toHaveLength(ALL_LISTED);
          expect(listed).not.toContain('search_tools');
          // The instructions fit the static listing (the session era answers them per client).
          if (era === 'legacy') expect(c.getInstructions()).not.toMatch(/search_tools/);
          await c.close();
        }
      });
    }
  }

  for (const other of ['claude-ai', 'Visual Studio Code', 'cursor-vscode', 'openai-agents-js']) {
    it(`decides on the number of tools for ${other}: the discovery tools, kept loaded`, async () => {
      for (const era of ['legacy', 'modern'] as const) {
        const c = await clientNamed(http, other, era);
        const { tools } = await c.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(DISCOVERY);
        for (const tool of tools) expect(tool._meta?.[ALWAYS_LOAD_META_KEY], tool.name).toBe(true);
        if (era === 'legacy') expect(c.getInstructions()).toMatch(/search_tools/);
        await c.close();
      }
    });
  }

  it('gives a deferring client the discovery tools when its X-MCP-Catalog header asks for them', async () => {
    const c = await clientNamed(http, 'claude-code', 'legacy', { 'X-MCP-Catalog': 'dynamic' });
    expect(await names(c)).toEqual(DISCOVERY);
    expect(c.getInstructions()).toMatch(/search_tools/);
    await c.close();
  });

  it('lists every tool to any client whose X-MCP-Catalog header asks for the static listing', async () => {
    const c = await clientNamed(http, 'cursor-vscode', 'modern', { 'X-MCP-Catalog': 'static' });
    const { tools } = await c.listTools();
    expect(tools).toHaveLength(ALL_LISTED);
    // Deferrable like any tool there: nothing is forced into the client's context.
    for (const tool of tools) expect(tool._meta?.[ALWAYS_LOAD_META_KEY]).toBeUndefined();
    await c.close();
  });
});

describe('the operator’s --catalog over the client rules', () => {
  it('serves the dynamic catalog to Claude Code when the operator says dynamic', async () => {
    const { host, http } = await serving({ mcp: { catalog: 'dynamic' } });
    try {
      const c = await clientNamed(http, 'claude-code');
      expect(await names(c)).toEqual(DISCOVERY);
      await c.close();
    } finally {
      await http.close();
      await host.close();
    }
  });
});
