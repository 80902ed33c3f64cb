import type { Tool } from '@modelcontextprotocol/client';
import { type SpawnedHost, spawnHost } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginPackages } from '../src/plugins.js';

// What an agent reads in tools/list must be enough on its own: many clients drop the server
// instructions, and clients that defer tools show a tool's listing without them.
let host: SpawnedHost;
let tools: Tool[];

beforeAll(async () => {
  // The static catalog explicitly: with all five plugins `auto` would list the dynamic one.
  host = await spawnHost({ plugins: pluginPackages(), mcp: { catalog: 'static' } }, { env: {} });
  ({ tools } = await host.client.listTools());
});
afterAll(() => host?.close());

describe('the static catalog as listed over MCP', () => {
  it('describes mode and request_body in every mode tool', () => {
    const modeTools = tools.filter((t) => t.inputSchema.properties?.mode);
    expect(modeTools.length).toBeGreaterThan(50);
    for (const tool of modeTools) {
      const props = tool.inputSchema.properties as Record<string, { description?: string }>;
      expect(props.mode?.description, tool.name).toMatch(/get_request_schema/);
      expect(props.mode?.description, tool.name).toMatch(/execute/);
      expect(props.request_body?.description, tool.name).toMatch(/JSON/);
    }
  });
});
