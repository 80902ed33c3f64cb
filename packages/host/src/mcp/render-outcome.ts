import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutcome } from '@toolhost/core';

/**
 * One outcome, rendered for MCP: the upstream response as structured content and as text;
 * errors as `isError` results carrying the structured error, so an agent can act on its code.
 */
export function renderOutcome(outcome: ToolOutcome): CallToolResult {
  if (!outcome.ok) {
    const { error } = outcome;
    return {
      isError: true,
      content: [{ type: 'text', text: JSON.stringify({ error }) }],
      structuredContent: { error: { ...error } },
    };
  }
  if (outcome.kind === 'schema') {
    return {
      content: [{ type: 'text', text: JSON.stringify(outcome.schema) }],
      structuredContent: { schema: outcome.schema },
    };
  }
  const text = outcome.body === null ? `HTTP ${outcome.status} (no content)` : JSON.stringify(outcome.body);
  return {
    content: [{ type: 'text', text }],
    structuredContent: { status: outcome.status, body: outcome.body },
  };
}
