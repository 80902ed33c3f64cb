import { describe, expect, it } from 'vitest';
import { renderOutcome } from './render-outcome.js';
import { fitResult, type ResultBudget } from './result-budget.js';
import { ResultStore } from './result-store.js';
import type { CallToolResult } from './sdk.js';

// A summary over the budget keeps, with their values, the fields an agent acts on next.
const budget = (maxBytes: number): ResultBudget => ({
  maxBytes,
  store: new ResultStore(),
  userId: 'alice',
  tool: 'GridApi.ListGridRecords',
  mcpName: 'GridApi_ListGridRecords',
  queryParams: [{ name: 'pagination_offset', apiName: 'offset' }],
});
const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text);

describe('summaries over the result budget', () => {
  it("keep a preview's id and expiry with their values, in the text and in structuredContent", () => {
    const preview = {
      preview_id: 'pv_AbCdEfGhIjKlMnOpQrStUv',
      tool: 'GridApi.CreateRecords',
      request: { method: 'POST', url: 'https://x.invalid/v0/app/t', body: { records: 'r'.repeat(20_000) } },
      expires_at: '2026-01-01T00:10:00.000Z',
    };
    const fitted = fitResult(
      { content: [{ type: 'text', text: JSON.stringify(preview) }] },
      preview,
      undefined,
      budget(4096),
    );
    expect(fitted.content).toHaveLength(2);
    expect(fitted.structuredContent).toMatchObject({
      preview_id: 'pv_AbCdEfGhIjKlMnOpQrStUv',
      tool: 'GridApi.CreateRecords',
      expires_at: '2026-01-01T00:10:00.000Z',
      truncated: true,
      resource: (fitted.content[1] as { uri: string }).uri,
    });
    expect(fitted.structuredContent).not.toHaveProperty('request');
    expect(textOf(fitted).fields.preview_id).toBe('pv_AbCdEfGhIjKlMnOpQrStUv');
  });

  it("keep an error's code, retryable and status as structuredContent.error", () => {
    const error = {
      code: 'upstream_error' as const,
      message: 'The API answered 422.',
      retryable: false,
      status: 422,
      upstream: { errors: Array.from({ length: 400 }, (_, i) => ({ field: `f${i}`, message: 'bad value' })) },
    };
    const fitted = fitResult(renderOutcome({ ok: false, error }), error, undefined, budget(4096));
    expect(fitted.isError).toBe(true);
    expect(fitted.content).toHaveLength(2);
    expect(fitted.structuredContent).toMatchObject({
      error: { code: 'upstream_error', retryable: false, status: 422, message: 'The API answered 422.' },
      truncated: true,
    });
    expect(textOf(fitted).fields.code).toBe('upstream_error');
  });

  it("keep the next page's cursor and the argument that takes it", () => {
    const body = {
      records: Array.from({ length: 200 }, (_, i) => ({ id: `rec${i}`, n: 'x'.repeat(100) })),
      offset: 'itr9/rec9',
    };
    const fitted = fitResult(
      { content: [{ type: 'text', text: JSON.stringify(body) }] },
      body,
      200,
      budget(4096),
    );
    expect(fitted.structuredContent).toMatchObject({
      offset: 'itr9/rec9',
      nextPage: { cursor: 'itr9/rec9', argument: 'pagination_offset' },
      truncated: true,
    });
  });

  it('leave out long strings, lists and objects, and stay within the budget', () => {
    const body = { id: 'rec1', long: 'z'.repeat(10_000), list: [1, 2, 3], nested: { a: 1 } };
    const fitted = fitResult(
      { content: [{ type: 'text', text: JSON.stringify(body) }] },
      body,
      200,
      budget(4096),
    );
    expect(fitted.structuredContent).toEqual({ id: 'rec1', truncated: true, resource: expect.any(String) });
    expect(Buffer.byteLength(JSON.stringify(fitted.structuredContent))).toBeLessThan(4096);
  });
});
