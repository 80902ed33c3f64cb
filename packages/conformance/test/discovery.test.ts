import type { Tool } from '@modelcontextprotocol/client';
import {
  type RecordingUpstream,
  resultText,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pluginPackages } from '../src/plugins.js';

// The dynamic catalog over stdio with every plugin: three tools instead of 214, each doing
// what its name says, with the same filters, validation and errors as direct calls.
const TOKENS = { CRM_AUTH_PROVIDER_TOKEN: 'crm-token', GRID_AUTH_PROVIDER_TOKEN: 'grid-token' };
let upstream: RecordingUpstream;
let dynamic: SpawnedHost;
let filtered: SpawnedHost;
let staticTools: Tool[];

const config = (url: string, extra: Record<string, unknown> = {}) => ({
  plugins: pluginPackages(),
  toolSets: {
    GridApi: { baseUrl: url, pacing: false as const },
    CrmMarketingApi: { baseUrl: url },
  },
  ...extra,
});

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  dynamic = await spawnHost(config(upstream.url), { env: TOKENS, args: ['--catalog', 'dynamic'] });
  filtered = await spawnHost(
    config(upstream.url, {
      tools: { deny: ['GridApi.Delete*'], readOnly: true },
      mcp: { catalog: 'dynamic' },
    }),
    { env: TOKENS },
  );
  const plain = await spawnHost(config(upstream.url, { mcp: { catalog: 'static' } }), { env: TOKENS });
  ({ tools: staticTools } = await plain.client.listTools());
  await plain.close();
});
afterAll(async () => {
  await dynamic?.close();
  await filtered?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { records: [{ id: 'rec1' }], offset: 'itr2' } }));
});

type Found = { name: string; description: string; toolSet: string; readOnly: boolean };
async function search(host: SpawnedHost, args: Record<string, unknown>) {
  const result = await host.client.callTool({ name: 'search_tools', arguments: args });
  return { result, tools: (result.structuredContent as { tools: Found[] } | undefined)?.tools ?? [] };
}

describe('serve --catalog dynamic', () => {
  it('lists search_tools, describe_tools and call_tool, and says how to use them', async () => {
    const { tools } = await dynamic.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'search_tools',
      'describe_tools',
      'call_tool',
      'preview_tool_call',
      'apply_preview',
    ]);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(40);
    expect(tools[0]!.inputSchema.required).toEqual(['query']);
    expect(dynamic.client.getInstructions()).toMatch(/search_tools.*describe_tools.*call_tool/s);
    expect(staticTools.length).toBeGreaterThan(200);
  });

  it('search_tools ranks the right tool first for requests in users’ words', async () => {
    const cases: [string, string][] = [
      ['list the rows of my Airtable table where Status is Done', 'GridApi_ListGridRecords'],
      ['open and click rates of our newsletters last month', 'CrmMarketingApi_GetEmailStatistics'],
      ['which SMTP tokens do we have for transactional email', 'CrmMarketingApi_QuerySmtpTokens'],
      ['make bob read-only on an Airtable base', 'GridApi_UpdateCollaboratorPermission'],
      ['track a purchase event for a person in Customer.io', 'CdpPipelinesApi_TrackUserEvent'],
    ];
    for (const [query, expected] of cases) {
      const { tools } = await search(dynamic, { query });
      expect(
        tools.map((t) => t.name),
        query,
      ).toContain(expected);
      expect(tools[0]!.name, query).toBe(expected);
    }
  });

  it('search_tools answers structured content and the same JSON as text, limited and filtered', async () => {
    const { result, tools } = await search(dynamic, { query: 'delete a record' });
    expect(tools).toHaveLength(5);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
    // Every set a found tool belongs to names its skill, so an agent can read the workflow.
    const sets = new Set(tools.map((t) => t.name.slice(0, t.name.indexOf('_'))));
    expect(Object.keys((result.structuredContent as { skills: object }).skills).sort()).toEqual(
      [...sets].sort(),
    );
    expect(tools[0]).toMatchObject({ toolSet: expect.any(String), readOnly: false });
    const listed = new Map(staticTools.map((t) => [t.name, t]));
    for (const t of tools) expect(listed.get(t.name)?.description).toBe(t.description);

    expect((await search(dynamic, { query: 'delete a record', limit: 25 })).tools.length).toBeGreaterThan(5);
    const grid = await search(dynamic, { query: 'delete a record', tool_set: 'CrmMarketingApi', limit: 3 });
    expect(grid.tools).toHaveLength(3);
    for (const t of grid.tools) expect(t.toolSet).toBe('CrmMarketingApi');
  });

  it('search_tools refuses a bad limit or an empty query', async () => {
    for (const args of [{ query: 'rows', limit: 26 }, { query: 'rows', limit: 0 }, { query: '' }]) {
      const { result } = await search(dynamic, args);
      expect(result.isError).toBe(true);
      // No structured content: search_tools declares an output schema, which an error does not fit.
      expect(result.structuredContent).toBeUndefined();
      const text = (result.content as { text: string }[])[0]!.text;
      expect(JSON.parse(text).error).toMatchObject({
        code: 'invalid_argument',
        parameter: expect.any(String),
      });
    }
  });

  it('describe_tools gives the listed input schema and the request body schema, in both spellings', async () => {
    const result = await dynamic.client.callTool({
      name: 'describe_tools',
      arguments: { names: ['GridApi.ListGridRecords', 'GridApi_UpdateGridRecords', 'No.Such'] },
    });
    const described = JSON.parse(await resultText(dynamic.client, result)) as {
      tools: { name: string; inputSchema: unknown; requestBodySchema?: unknown }[];
      unknown: string[];
    };
    expect(described.tools.map((t) => t.name)).toEqual([
      'GridApi_ListGridRecords',
      'GridApi_UpdateGridRecords',
    ]);
    expect(described.unknown).toEqual(['No.Such']);
    const listed = new Map(staticTools.map((t) => [t.name, t]));
    for (const t of described.tools) expect(t.inputSchema).toEqual(listed.get(t.name)!.inputSchema);
    expect(described.tools[0]!.requestBodySchema).toBeUndefined();
    const schema = await dynamic.client.callTool({
      name: 'call_tool',
      arguments: { name: 'GridApi_UpdateGridRecords', arguments: { mode: 'get_request_schema' } },
    });
    expect(described.tools[1]!.requestBodySchema).toEqual(
      JSON.parse(await resultText(dynamic.client, schema)),
    );
  });

  it('call_tool sends exactly what a direct call sends and answers the same', async () => {
    const args = { base_id: 'appA1', table_id_or_name: 'Tasks', page_size: 10, pagination_offset: 'itr1' };
    const via = await dynamic.client.callTool({
      name: 'call_tool',
      arguments: { name: 'GridApi.ListGridRecords', arguments: args },
    });
    const direct = await dynamic.client.callTool({ name: 'GridApi_ListGridRecords', arguments: args });
    expect(via).toEqual(direct);
    expect(upstream.requests).toHaveLength(2);
    for (const req of upstream.requests) {
      expect(req.method).toBe('GET');
      expect(req.path).toBe('/appA1/Tasks');
      expect(req.query).toEqual([
        ['pageSize', '10'],
        ['offset', 'itr1'],
      ]);
      expect(req.headers.authorization).toBe('Bearer grid-token');
    }
    expect(dynamic.stderr()).toMatch(/"tool":"GridApi.ListGridRecords"/);
  });

  it('call_tool validates and fails as a direct call does', async () => {
    const bad = { base_id: 'appA1' };
    const via = await dynamic.client.callTool({
      name: 'call_tool',
      arguments: { name: 'GridApi_ListGridRecords', arguments: bad },
    });
    const direct = await dynamic.client.callTool({ name: 'GridApi_ListGridRecords', arguments: bad });
    expect(via.isError).toBe(true);
    expect(via).toEqual(direct);
    expect(upstream.requests).toHaveLength(0);
    await expect(
      dynamic.client.callTool({
        name: 'call_tool',
        arguments: { name: 'GridApi_NoSuchTool', arguments: {} },
      }),
    ).rejects.toThrow(/No tool named 'GridApi_NoSuchTool' is loaded/);
  });

  it('is also chosen by TOOLHOST_CATALOG, and static lists every tool when asked for', async () => {
    const byEnv = await spawnHost(config(upstream.url), { env: { ...TOKENS, TOOLHOST_CATALOG: 'dynamic' } });
    expect((await byEnv.client.listTools()).tools.map((t) => t.name)).toEqual([
      'search_tools',
      'describe_tools',
      'call_tool',
      'preview_tool_call',
      'apply_preview',
    ]);
    await byEnv.close();
    expect(staticTools.map((t) => t.name)).not.toContain('search_tools');
  });

  it('applies the tool filters to all three tools', async () => {
    const { tools } = await search(filtered, { query: 'delete records from an Airtable table', limit: 25 });
    expect(tools.length).toBeGreaterThan(0);
    for (const t of tools) {
      expect(t.readOnly).toBe(true);
      expect(t.name).not.toMatch(/^GridApi_Delete/);
    }
    const described = await filtered.client.callTool({
      name: 'describe_tools',
      arguments: { names: ['GridApi_DeleteGridRecord'] },
    });
    expect((described.structuredContent as { error: { code: string } }).error.code).toBe('unknown_tool');
    await expect(
      filtered.client.callTool({
        name: 'call_tool',
        arguments: { name: 'GridApi_DeleteGridRecord', arguments: {} },
      }),
    ).rejects.toThrow(/The tool GridApi_DeleteGridRecord is loaded but hidden by this host's configuration/);
    expect(upstream.requests).toHaveLength(0);
  });
});
