import { createHost, expandSchemaReferences, type Host, mcpToolName } from '@toolhost/host';
import { type SpawnedHost, spawnHost } from '@toolhost/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pluginPackages } from '../src/plugins.js';

/** The largest request schema a result carries, as the README states it (about 7,000 tokens). */
const MAX_SCHEMA_BYTES = 28_000;

type Node = Record<string, unknown>;
const expandReferences = (schema: Node) => expandSchemaReferences(schema) as Node;

let spawned: SpawnedHost;
let embedded: Host;
beforeAll(async () => {
  // The default result budget (80,000 bytes), as every client gets it.
  spawned = await spawnHost({ plugins: pluginPackages(), mcp: { catalog: 'static' } }, { env: {} });
  embedded = await createHost({ plugins: pluginPackages() }, { env: {} });
});
afterAll(async () => {
  await spawned?.close();
  await embedded?.close();
});

it('answers every one of the 86 request schemas whole, within the stated size', async () => {
  const { tools } = await spawned.client.listTools();
  const modeTools = tools.filter((t) => t.inputSchema.properties?.mode);
  expect(modeTools).toHaveLength(86);
  const ajv = new Ajv2020({ strict: false, validateFormats: false, logger: false });
  const sizes: Record<string, number> = {};
  for (const tool of modeTools) {
    const result = await spawned.client.callTool({
      name: tool.name,
      arguments: { mode: 'get_request_schema' },
    });
    const content = result.content as { type: string; text?: string }[];
    expect(
      content.map((c) => c.type),
      tool.name,
    ).toEqual(['text']);
    const text = content[0]!.text!;
    const listed = JSON.parse(text) as Node;
    expect(listed, tool.name).not.toHaveProperty('truncated');
    sizes[tool.name] = Buffer.byteLength(text);
    const canonical = embedded.listTools().find((t) => mcpToolName(t.name) === tool.name)?.name;
    const full = await embedded.callTool(canonical!, { mode: 'get_request_schema' });
    expect(full.ok && full.kind === 'schema', tool.name).toBe(true);
    if (full.ok && full.kind === 'schema') expect(expandReferences(listed), tool.name).toEqual(full.schema);
    expect(() => ajv.compile(listed), tool.name).not.toThrow();
  }
  const over = Object.entries(sizes).filter(([, bytes]) => bytes > MAX_SCHEMA_BYTES);
  expect(over).toEqual([]);
});
