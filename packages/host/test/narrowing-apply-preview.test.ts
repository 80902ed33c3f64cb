import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestPreview, ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { inlinePlugin } from './support.js';
import { textOf, WRITE_KEY, writeTools } from './write-support.js';

// A second write, so that a request narrowed to it is still served the preview tools.
const create: ToolDeclaration = {
  name: 'CreateThing',
  description: 'Create a thing.',
  method: 'POST',
  path: '/things',
  auth: { kind: 'secret', secret: 'WRITE_KEY', scheme: 'bearer' },
  body: { kind: 'fields' },
  params: [{ name: 'title', in: 'body', required: true, schema: { type: 'string' }, description: 'Title.' }],
};

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
  host = await createHost(
    { toolSets: { WriteApi: { baseUrl: upstream.url } } },
    { plugins: [inlinePlugin('WriteApi', [...writeTools, create])], env: { WRITE_KEY } },
  );
  server = await serveHttp(host, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
});
beforeEach(() => upstream.reset());

async function clientWith(headers: Record<string, string>) {
  const client = new Client({ name: 'narrowing-previews-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  return client;
}

describe("apply_preview within the request's narrowing", () => {
  it('refuses a preview of a tool the narrowing hides, naming the header, and sends nothing', async () => {
    const whole = await clientWith({});
    const preview = textOf(
      await whole.callTool({
        name: 'preview_tool_call',
        arguments: { name: 'WriteApi_UpdateThing', arguments: { id: 'a', title: 'New' } },
      }),
    ) as RequestPreview;

    const narrowed = await clientWith({ 'X-MCP-Tools': 'WriteApi_CreateThing' });
    const refused = await narrowed.callTool({
      name: 'apply_preview',
      arguments: { preview_id: preview.preview_id },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatchObject({ error: { code: 'unknown_tool' } });
    expect(JSON.stringify(refused)).toMatch(/x-mcp-tools/i);
    expect(JSON.stringify(refused)).toContain('WriteApi.UpdateThing');
    expect(upstream.requests).toHaveLength(0);

    // Refused, not used up: a request that sees the tool still sends it, once.
    const applied = await whole.callTool({
      name: 'apply_preview',
      arguments: { preview_id: preview.preview_id },
    });
    expect(applied.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['PATCH /things/a']);
    await narrowed.close();
    await whole.close();
  });

  it('applies a preview of a tool the narrowing shows', async () => {
    const narrowed = await clientWith({
      'X-MCP-Toolsets': 'WriteApi',
      'X-MCP-Tools': 'WriteApi_CreateThing',
    });
    const preview = textOf(
      await narrowed.callTool({
        name: 'preview_tool_call',
        arguments: { name: 'WriteApi_CreateThing', arguments: { title: 'T' } },
      }),
    ) as RequestPreview;
    const applied = await narrowed.callTool({
      name: 'apply_preview',
      arguments: { preview_id: preview.preview_id },
    });
    expect(applied.isError).toBeFalsy();
    expect(upstream.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/things', { title: 'T' }],
    ]);
    await narrowed.close();
  });
});
