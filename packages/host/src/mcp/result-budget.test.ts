import { describe, expect, it } from 'vitest';
import { fitResult, type ResultBudget } from './result-budget.js';
import { ResultStore } from './result-store.js';
import type { CallToolResult } from './sdk.js';

const budget = (maxBytes: number, store = new ResultStore()): ResultBudget => ({
  maxBytes,
  store,
  userId: 'alice',
  tool: 'GridApi.ListGridRecords',
  mcpName: 'GridApi_ListGridRecords',
  queryParams: [
    { name: 'pagination_offset', apiName: 'offset' },
    { name: 'page_size', apiName: 'pageSize' },
  ],
});
const asResult = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  _meta: { 'toolhost/status': 200 },
});
const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `rec${i}`,
    fields: { Name: `Row ${i}`, Notes: 'x'.repeat(200) },
  }));

describe('fitResult', () => {
  it('returns a result within the budget as it is', () => {
    const result = asResult({ records: records(2) });
    expect(fitResult(result, { records: records(2) }, 200, budget(10_000))).toBe(result);
  });

  it('answers a larger body with a summary within the budget and a link to the whole body', () => {
    const body = { records: records(500), offset: 'itrNEXT/recX' };
    const store = new ResultStore();
    const fitted = fitResult(asResult(body), body, 200, budget(8_000, store));
    const [text, link] = fitted.content;
    expect(text?.type).toBe('text');
    const summaryText = (text as { text: string }).text;
    expect(Buffer.byteLength(summaryText)).toBeLessThanOrEqual(8_000);
    const summary = JSON.parse(summaryText);
    expect(summary).toMatchObject({
      truncated: true,
      status: 200,
      bytes: Buffer.byteLength(JSON.stringify(body)),
      shape: { records: 'array(500)', offset: 'string' },
      items: { path: 'records', total: 500 },
      nextPage: { cursor: 'itrNEXT/recX', from: 'offset', argument: 'pagination_offset' },
    });
    expect(summary.items.shown).toBeGreaterThan(0);
    expect(summary.items.first).toEqual(body.records.slice(0, summary.items.shown));
    expect(summary.nextPage.how).toMatch(/pagination_offset.*page_size/);
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'application/json' });
    const uri = (link as { uri: string }).uri;
    expect(store.get(uri, 'alice')?.text).toBe(JSON.stringify(body));
    expect(store.get(uri, 'bob')).toBeUndefined();
    expect(fitted._meta).toEqual({ 'toolhost/status': 200 });
  });

  it('finds a nested cursor such as HubSpot paging.next.after', () => {
    const body = { results: records(300), paging: { next: { after: 'NTI1Cg', link: 'x' } } };
    const b = { ...budget(6_000), queryParams: [{ name: 'paging_cursor_token', apiName: 'after' }] };
    const summary = JSON.parse((fitResult(asResult(body), body, 200, b).content[0] as { text: string }).text);
    expect(summary.nextPage).toMatchObject({
      cursor: 'NTI1Cg',
      from: 'paging.next.after',
      argument: 'paging_cursor_token',
    });
  });

  it('drops structured content over the budget when the text fits', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'short' }],
      structuredContent: { big: 'y'.repeat(9_000) },
    };
    const fitted = fitResult(result, undefined, undefined, budget(8_000));
    expect(fitted.structuredContent).toBeUndefined();
    expect(fitted.content).toEqual(result.content);
  });

  it('describes the first item by its shape when even one item is over the room', () => {
    const body = [{ id: 1, blob: 'z'.repeat(50_000) }, { id: 2 }];
    const summary = JSON.parse(
      (fitResult(asResult(body), body, 200, budget(5_000)).content[0] as { text: string }).text,
    );
    expect(summary.items).toMatchObject({ path: '(the body)', total: 2, shown: 0 });
    expect(summary.itemShape).toEqual({ id: 'number', blob: 'string' });
  });
});
