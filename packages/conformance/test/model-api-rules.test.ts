import type { Tool } from '@modelcontextprotocol/client';
import { type MCPServer, mcpToFunctionTool } from '@openai/agents-core';
import { spawnHost } from '@toolhost/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicToolRules,
  geminiFunctionRules,
  openAiFunctionRules,
  prefixedNameRules,
} from '../src/model-api-rules.js';
import { pluginPackages } from '../src/plugins.js';

// Every input schema the host lists, for every plugin and the host's own tools, in both catalog
// modes, as the model APIs agents run on take them: one refused tool fails every request that
// lists it, whichever tool the person wanted.
const catalogs: Record<'static' | 'dynamic', Tool[]> = { static: [], dynamic: [] };

beforeAll(async () => {
  for (const catalog of ['static', 'dynamic'] as const) {
    const host = await spawnHost({ plugins: pluginPackages(), mcp: { catalog } }, { env: {} });
    try {
      catalogs[catalog] = (await host.client.listTools()).tools;
    } finally {
      await host.close();
    }
  }
});

/**
 * Parameters whose objects declare no properties (free-form JSON, or a map of names the caller
 * picks). OpenAI's strict mode cannot say "any object": the Agents SDK keeps such a tool
 * non-strict, which the API accepts; the README says which tools and why.
 */
function openObjectParameters(tool: Tool): string[] {
  return Object.entries(tool.inputSchema.properties ?? {})
    .filter(([, s]) => {
      const schema = s as { type?: unknown; properties?: object };
      return schema.type === 'object' && Object.keys(schema.properties ?? {}).length === 0;
    })
    .map(([name]) => name);
}

// The Agents SDK calls the server only when a tool runs; converting needs its name alone.
const server = { name: 'toolhost' } as MCPServer;

describe.each(['static', 'dynamic'] as const)('the %s catalog', (catalog) => {
  it('lists every tool of every plugin and the host', () => {
    const tools = catalogs[catalog];
    expect(tools.length).toBeGreaterThan(catalog === 'static' ? 200 : 3);
    expect(tools.map((t) => t.name)).toContain('preview_tool_call');
  });

  it.each([
    ['Anthropic tool', anthropicToolRules],
    ['OpenAI function', openAiFunctionRules],
    ['Gemini function declaration', geminiFunctionRules],
    ['64-character name, with the prefix clients add,', prefixedNameRules],
  ])('meets the %s rules with every schema', (_api, rules) => {
    const refused = catalogs[catalog]
      .map((tool) => ({ tool: tool.name, problems: rules(tool) }))
      .filter((r) => r.problems.length > 0);
    expect(refused).toEqual([]);
  });

  it("converts to OpenAI strict mode with the Agents SDK's own converter, but for open objects", () => {
    const nonStrict: { tool: string; openObjects: string[] }[] = [];
    for (const tool of catalogs[catalog]) {
      // The SDK's MCPTool type wants fields it fills in itself when absent (it does so here).
      const converted = mcpToFunctionTool(tool as Parameters<typeof mcpToFunctionTool>[0], server, true);
      if (!converted.strict) nonStrict.push({ tool: tool.name, openObjects: openObjectParameters(tool) });
    }
    // A tool is non-strict only for a parameter strict mode cannot express.
    expect(nonStrict.filter((t) => t.openObjects.length === 0)).toEqual([]);
    const expected = catalog === 'static' ? 4 : 2;
    expect(nonStrict.length, JSON.stringify(nonStrict)).toBe(expected);
  });
});
