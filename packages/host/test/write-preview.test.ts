import type { RequestPreview, ToolOutcome } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { mcpClient, textOf, WRITE_KEY, writeHost } from './write-support.js';

let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream((req) => ({ status: 200, body: { updated: req.path } }));
  host = await writeHost(upstream.url);
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const update = { id: 'a b', notify: true, title: 'New title' };
const code = (o: unknown) => (o as { error?: { code: string } }).error?.code;

describe('preview_tool_call and apply_preview', () => {
  it('are listed in the static and the dynamic catalogs', async () => {
    const names = async (h: Host) => (await (await mcpClient(h)).listTools()).tools.map((t) => t.name);
    expect(await names(host)).toEqual([
      'WriteApi_UpdateThing',
      'WriteApi_ListThings',
      'preview_tool_call',
      'apply_preview',
    ]);
    const dynamic = await writeHost(upstream.url, { mcp: { catalog: 'dynamic' } });
    expect(await names(dynamic)).toEqual([
      'search_tools',
      'describe_tools',
      'call_tool',
      'preview_tool_call',
      'apply_preview',
    ]);
    await dynamic.close();
  });

  it('previews without sending, and apply sends exactly the previewed request, once', async () => {
    const client = await mcpClient(host);
    const preview = textOf(
      await client.callTool({
        name: 'preview_tool_call',
        arguments: { name: 'WriteApi_UpdateThing', arguments: update },
      }),
    ) as RequestPreview;
    expect(upstream.requests).toHaveLength(0);
    expect(preview).toMatchObject({
      tool: 'WriteApi.UpdateThing',
      request: {
        method: 'PATCH',
        url: `${upstream.url}/things/a%20b?notify=true`,
        headers: { authorization: '[redacted]', 'content-type': 'application/json' },
        body: { title: 'New title' },
      },
    });
    expect(JSON.stringify(preview)).not.toContain(WRITE_KEY);
    expect(Date.parse(preview.expires_at)).toBeGreaterThan(Date.now());

    const applied = await client.callTool({
      name: 'apply_preview',
      arguments: { preview_id: preview.preview_id },
    });
    expect(textOf(applied)).toEqual({ updated: '/things/a b' });
    expect(upstream.requests).toHaveLength(1);
    const sent = upstream.requests[0]!;
    expect(`${upstream.url}${sent.rawPath}?${sent.rawQuery}`).toBe(preview.request.url);
    expect(sent.method).toBe('PATCH');
    expect(sent.body).toEqual(preview.request.body);
    expect(sent.headers.authorization).toBe(`Bearer ${WRITE_KEY}`);

    // What a direct call answers, and nothing sent a second time.
    const direct = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update });
    expect(applied.content).toEqual(direct.content);
    upstream.reset();
    const again = await client.callTool({
      name: 'apply_preview',
      arguments: { preview_id: preview.preview_id },
    });
    expect(again.isError).toBe(true);
    expect(code(textOf(again))).toBe('preview_used');
    expect(upstream.requests).toHaveLength(0);
  });

  it('accepts the canonical dotted name as well as the MCP name', async () => {
    const client = await mcpClient(host);
    const result = await client.callTool({
      name: 'preview_tool_call',
      arguments: { name: 'WriteApi.UpdateThing', arguments: update },
    });
    expect((textOf(result) as RequestPreview).tool).toBe('WriteApi.UpdateThing');
    expect(upstream.requests).toHaveLength(0);
  });

  it('validates as a real call does: the same error, nothing kept, nothing sent', async () => {
    const client = await mcpClient(host);
    const bad = { id: 'x', title: 42 };
    const previewed = await client.callTool({
      name: 'preview_tool_call',
      arguments: { name: 'WriteApi_UpdateThing', arguments: bad },
    });
    const direct = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: bad });
    expect(previewed.isError).toBe(true);
    expect(textOf(previewed)).toEqual(textOf(direct));
    expect(code(textOf(previewed))).toBe('invalid_argument');
    const missing = await client.callTool({ name: 'apply_preview', arguments: {} });
    expect(textOf(missing)).toMatchObject({ error: { code: 'invalid_argument', parameter: 'preview_id' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it("does not find another user's preview, and refuses an expired one", async () => {
    const short = await writeHost(upstream.url, { tools: { previewTtlSeconds: 1 } });
    const made = (await short.previewToolCall('WriteApi.UpdateThing', update, { userId: 'alice' })) as {
      preview: RequestPreview;
    };
    const id = made.preview.preview_id;
    expect(code(await short.applyPreview(id, { userId: 'bob' }))).toBe('preview_not_found');
    expect(code(await short.applyPreview('pv_nothing', { userId: 'alice' }))).toBe('preview_not_found');
    // previewTtlSeconds is 1: wait past it.
    await new Promise((r) => setTimeout(r, 1100));
    const late: ToolOutcome = await short.applyPreview(id, { userId: 'alice' });
    expect(code(late)).toBe('preview_expired');
    expect(upstream.requests).toHaveLength(0);
    await short.close();
  });

  it('lets a preview be applied again when its first apply never reached the upstream', async () => {
    const noKey = await writeHost(upstream.url, {}, { WRITE_KEY: '' });
    const made = (await noKey.previewToolCall('WriteApi.UpdateThing', update)) as { preview: RequestPreview };
    expect(code(await noKey.applyPreview(made.preview.preview_id))).toBe('missing_secret');
    expect(code(await noKey.applyPreview(made.preview.preview_id))).toBe('missing_secret');
    expect(upstream.requests).toHaveLength(0);
    await noKey.close();
  });
});
