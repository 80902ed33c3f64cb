import { CallToolResultSchema } from '@modelcontextprotocol/core';
import type { ToolOutcome } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { renderOutcome } from './render-outcome.js';
import { fitResult } from './result-budget.js';
import { ResultStore } from './result-store.js';

// The server registers tools/call without the SDK's check of each result against
// CallToolResultSchema (create-mcp-server.ts), so every kind of result is checked here.
const outcomes: [string, ToolOutcome][] = [
  ['a response', { ok: true, kind: 'response', status: 200, body: { results: [{ id: '1' }] } }],
  ['an empty response', { ok: true, kind: 'response', status: 204, body: null }],
  ['a request schema', { ok: true, kind: 'schema', schema: { type: 'object', properties: {} } }],
  [
    'an error',
    {
      ok: false,
      error: { code: 'invalid_argument', message: "'limit' must be an integer", retryable: false },
    },
  ],
];

describe('renderOutcome', () => {
  it.each(outcomes)('renders %s as a valid MCP tool result', (_, outcome) => {
    const parsed = CallToolResultSchema.safeParse(renderOutcome(outcome));
    expect(parsed.error).toBeUndefined();
  });

  it('keeps a result cut to its budget valid (summary and resource link)', () => {
    const body = {
      records: Array.from({ length: 400 }, (_, i) => ({ id: `rec${i}`, note: 'x'.repeat(100) })),
    };
    const fitted = fitResult(renderOutcome({ ok: true, kind: 'response', status: 200, body }), body, 200, {
      maxBytes: 4_000,
      store: new ResultStore(),
      userId: 'alice',
      tool: 'GridApi.ListGridRecords',
      mcpName: 'GridApi_ListGridRecords',
      queryParams: [],
    });
    expect(fitted.content.map((c) => c.type)).toContain('resource_link');
    expect(CallToolResultSchema.safeParse(fitted).error).toBeUndefined();
  });
});
