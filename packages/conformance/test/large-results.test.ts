import { createHost } from '@toolhost/host';
import {
  type RecordingUpstream,
  resultText,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// An Airtable table listing of 2 MB of JSON, through the real host with its default budget.
const records = Array.from({ length: 6000 }, (_, i) => ({
  id: `rec${String(i).padStart(14, '0')}`,
  createdTime: '2026-01-01T00:00:00.000Z',
  fields: { Name: `Row ${i}`, Notes: 'n'.repeat(280), Status: i % 2 ? 'Done' : 'Todo' },
}));
const body = { records, offset: 'itrNEXTPAGE/rec00000000006000' };
const bodyText = JSON.stringify(body);
const DEFAULT_BUDGET = 80_000;

let upstream: RecordingUpstream;
let host: SpawnedHost;
const toolSets = (url: string) => ({ GridApi: { baseUrl: url, pacing: false as const } });
const env = { GRID_AUTH_PROVIDER_TOKEN: 'grid-token' };
const args = { base_id: 'appBIG', table_id_or_name: 'Everything' };

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body }));
  host = await spawnHost({ plugins: ['@toolhost/plugin-grid'], toolSets: toolSets(upstream.url) }, { env });
});
afterAll(async () => {
  await host?.close();
  await upstream?.close();
});

describe('a 2 MB upstream answer', () => {
  it('is over 2 MB', () => {
    expect(Buffer.byteLength(bodyText)).toBeGreaterThan(2_000_000);
  });

  it('comes back as a summary within the budget whose resource link reads back the whole body', async () => {
    const result = await host.client.callTool({ name: 'GridApi_ListGridRecords', arguments: args });
    expect(result.isError).toBeFalsy();
    // What an agent needs to act without reading the resource: the next page's cursor.
    expect(result.structuredContent).toMatchObject({
      truncated: true,
      resource: (result.content as { uri?: string }[])[1]?.uri,
      nextPage: { cursor: body.offset },
    });
    const content = result.content as { type: string; text?: string; uri?: string; size?: number }[];
    expect(content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(Buffer.byteLength(content[0]!.text!)).toBeLessThanOrEqual(DEFAULT_BUDGET);
    const summary = JSON.parse(content[0]!.text!);
    expect(summary).toMatchObject({
      truncated: true,
      status: 200,
      bytes: Buffer.byteLength(bodyText),
      shape: { records: 'array(6000)', offset: 'string' },
      items: { path: 'records', total: 6000 },
      nextPage: { cursor: body.offset, from: 'offset', argument: 'pagination_offset' },
    });
    expect(summary.nextPage.how).toMatch(/GridApi_ListGridRecords.*pagination_offset.*page_size/);
    expect(summary.items.first).toEqual(records.slice(0, summary.items.shown));
    expect(content[1]!.size).toBe(Buffer.byteLength(bodyText));
    expect(await resultText(host.client, result)).toBe(bodyText);
  });

  it('is returned whole by the embedding API', async () => {
    const embedded = await createHost(
      { plugins: ['@toolhost/plugin-grid'], toolSets: toolSets(upstream.url) },
      { env },
    );
    const outcome = await embedded.callTool('GridApi.ListGridRecords', args);
    expect(outcome).toEqual({ ok: true, kind: 'response', status: 200, body });
    await embedded.close();
  });
});
