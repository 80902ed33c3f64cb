import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import type { Host } from '../src/host.js';
import { mcpClient, writeHost } from './write-support.js';

// Over MCP, a preview too large for the result budget still hands the agent its preview_id,
// which is all it needs to apply it; an error too large still hands it its code.
let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
  host = await writeHost(upstream.url, { mcp: { maxResultBytes: 4096 } });
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});

describe('a summary over the result budget', () => {
  it("carries a preview's real preview_id, which apply_preview takes", async () => {
    const client = await mcpClient(host);
    const preview = (await client.callTool({
      name: 'preview_tool_call',
      arguments: { name: 'WriteApi_UpdateThing', arguments: { id: 'a', title: 't'.repeat(10_000) } },
    })) as CallToolResult;
    expect(preview.content[1]).toMatchObject({ type: 'resource_link' });
    const id = (preview.structuredContent as { preview_id: string }).preview_id;
    expect(id).toMatch(/^pv_[\w-]{22}$/);
    expect(JSON.parse((preview.content[0] as { text: string }).text).fields.preview_id).toBe(id);
    const applied = (await client.callTool({
      name: 'apply_preview',
      arguments: { preview_id: id },
    })) as CallToolResult;
    expect(applied.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    await client.close();
  });
});
