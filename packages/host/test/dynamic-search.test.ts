import { defineToolSetPlugin, type ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { inlinePlugin } from './support.js';
import { mcpClient, textOf } from './write-support.js';

// Siblings an agent confuses: a definition and one of its properties, listing and reading one,
// a record named only by its id's shape. Nothing here is known to the search by name: it reads
// the operation, the object and the ids from these declarations.
const auth = { kind: 'secret', secret: 'DEMO_KEY', scheme: 'bearer' } as const;
const pathId = (name: string, description = '') =>
  ({ name, in: 'path', required: true, schema: { type: 'string' }, description }) as const;
const demoTools: ToolDeclaration[] = [
  {
    name: 'ListDefinitions',
    description: 'Demo: list event definitions.',
    method: 'GET',
    path: '/v1/definitions',
    auth,
  },
  {
    name: 'ReadDefinition',
    description: 'Demo: get one event definition by its name.',
    method: 'GET',
    path: '/v1/definitions/{name}',
    auth,
    params: [pathId('name')],
  },
  {
    name: 'DropDefinition',
    description: 'Demo: delete an event definition by its name.',
    method: 'DELETE',
    path: '/v1/definitions/{name}',
    auth,
    params: [pathId('name')],
  },
  {
    name: 'DropDefinitionProperty',
    description: 'Demo: delete a property of an event definition.',
    method: 'DELETE',
    path: '/v1/definitions/{name}/property/{property}',
    auth,
    params: [pathId('name'), pathId('property')],
  },
  {
    name: 'DefineEvent',
    description: 'Demo: create an event definition, with its properties.',
    method: 'POST',
    path: '/v1/definitions',
    auth,
    body: {
      kind: 'mode',
      schema: {
        type: 'object',
        properties: { name: { type: 'string' }, label: { type: 'string' }, archived: { type: 'boolean' } },
        required: ['name', 'label'],
      },
    },
  },
  {
    name: 'ReadRecord',
    description: 'Demo: get one record (row) of a table by id.',
    method: 'GET',
    path: '/v1/{base}/{table}/{record}',
    auth,
    params: [pathId('base', 'app…'), pathId('table', 'tbl… or name'), pathId('record', 'rec…')],
  },
  {
    name: 'ListRecords',
    description: 'Demo: list records (rows) of a table.',
    method: 'GET',
    path: '/v1/{base}/{table}',
    auth,
    params: [pathId('base', 'app…'), pathId('table', 'tbl… or name')],
  },
];

let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
  host = await createHost(
    { toolSets: { DemoApi: { baseUrl: upstream.url } }, mcp: { catalog: 'dynamic' } },
    { plugins: [inlinePlugin('DemoApi', demoTools)], env: { DEMO_KEY: 'demo-key-0123456789' } },
  );
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

interface Hit {
  name: string;
  differs?: string;
}
async function search(query: string, on: Host = host): Promise<Hit[]> {
  const client = await mcpClient(on);
  const result = await client.callTool({ name: 'search_tools', arguments: { query } });
  return (result.structuredContent as { tools: Hit[] }).tools;
}

describe('search_tools over a dynamic catalog', () => {
  it('tells the definition from one of its properties by the object the request names', async () => {
    expect((await search('drop the color property from the signup definition'))[0]?.name).toBe(
      'DemoApi_DropDefinitionProperty',
    );
    expect((await search('get rid of the signup definition altogether'))[0]?.name).toBe(
      'DemoApi_DropDefinition',
    );
  });

  it('ranks the list tool first for a "what … do we have" question, the read tool for one named', async () => {
    expect((await search('what event definitions do we have?'))[0]?.name).toBe('DemoApi_ListDefinitions');
    expect((await search('event definitions we have'))[0]?.name).toBe('DemoApi_ListDefinitions');
    expect((await search('show definition signup'))[0]?.name).toBe('DemoApi_ReadDefinition');
  });

  it('takes an id by its shape: a rec… id names one record', async () => {
    expect((await search('open recAbCdEfGh1jKlMn'))[0]?.name).toBe('DemoApi_ReadRecord');
  });

  it('says in one line how each hit differs from its nearest sibling', async () => {
    const hits = await search('delete an event definition');
    const whole = hits.find((h) => h.name === 'DemoApi_DropDefinition');
    const one = hits.find((h) => h.name === 'DemoApi_DropDefinitionProperty');
    expect(whole?.differs).toBe('the definition itself, not one property of it (DropDefinitionProperty)');
    expect(one?.differs).toBe('one property of a definition, not the definition itself (DropDefinition)');
  });
});

describe('search_tools leaning on a plugin’s past requests', () => {
  it('finds the tool that answered a question asked alike, where the catalog says none of its words', async () => {
    // A third-party plugin declares them as the repository's plugins do (contract 2.6).
    const plugin = defineToolSetPlugin({
      contractVersion: '2.6',
      name: 'demo-with-past-requests',
      version: '1.0.0',
      toolSet: 'DemoApi',
      servers: { default: upstream.url },
      tools: demoTools,
      pastRequests: [
        { request: 'Only the first 100 rows come back, the rest are missing', tools: ['ListRecords'] },
        { request: 'A tool the set does not have', tools: ['NoSuchTool'] },
      ],
    });
    const leaning = await createHost(
      { mcp: { catalog: 'dynamic' } },
      { plugins: [plugin], env: { DEMO_KEY: 'demo-key-0123456789' } },
    );
    try {
      expect(leaning.serving.pastRequests).toEqual([
        {
          request: 'Only the first 100 rows come back, the rest are missing',
          tools: ['DemoApi.ListRecords'],
        },
      ]);
      const query = 'the rest of the items are missing after 100';
      expect((await search(query, leaning))[0]?.name).toBe('DemoApi_ListRecords');
      expect((await search(query)).map((h) => h.name)).not.toContain('DemoApi_ListRecords');
      // A request the catalog answers plainly keeps its answer.
      expect((await search('show definition signup', leaning))[0]?.name).toBe('DemoApi_ReadDefinition');
      expect(upstream.requests).toEqual([]);
    } finally {
      await leaning.close();
    }
  });
});

describe('describe_tools', () => {
  it('gives an example call that call_tool accepts as it is', async () => {
    const client = await mcpClient(host);
    const described = textOf(
      await client.callTool({
        name: 'describe_tools',
        arguments: { names: ['DemoApi_ReadRecord', 'DemoApi_DefineEvent'] },
      }),
    ) as { tools: { name: string; example: { name: string; arguments: Record<string, unknown> } }[] };
    const [read, define] = described.tools;
    expect(read?.example).toEqual({
      name: 'DemoApi_ReadRecord',
      arguments: {
        base: `app${'X'.repeat(14)}`,
        table: `tbl${'X'.repeat(14)}`,
        record: `rec${'X'.repeat(14)}`,
      },
    });
    expect(define?.example.arguments.mode).toBe('execute');
    expect(JSON.parse(define?.example.arguments.request_body as string)).toEqual({
      name: '<name>',
      label: '<label>',
    });

    for (const example of [read!.example, define!.example])
      expect((await client.callTool({ name: 'call_tool', arguments: example })).isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/app${'X'.repeat(14)}/tbl${'X'.repeat(14)}/rec${'X'.repeat(14)}`,
      'POST /v1/definitions',
    ]);
    expect(upstream.requests[1]?.body).toEqual({ name: '<name>', label: '<label>' });
  });
});
