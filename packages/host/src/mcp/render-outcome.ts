import type { JsonSchema, ToolOutcome } from '@toolhost/core';
import { compactLargeSchema } from './compact-schema.js';
import type { CallToolResult } from './sdk.js';

/** Where a response's HTTP status travels: beside the body, not in the text the model reads. */
export const STATUS_META_KEY = 'toolhost/status';

/**
 * One outcome, rendered for MCP. The upstream body is sent once, as JSON text (no copy in
 * `structuredContent`: the tools declare no output schema, and a second copy doubled every
 * answer), with the HTTP status in `_meta`. Errors are `isError` results carrying the
 * structured error too, so an agent or client can act on its code; they are small.
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
  if (outcome.kind === 'schema') return { content: [{ type: 'text', text: schemaText(outcome.schema) }] };
  const text = outcome.body === null ? `HTTP ${outcome.status} (no content)` : JSON.stringify(outcome.body);
  return { content: [{ type: 'text', text }], _meta: { [STATUS_META_KEY]: outcome.status } };
}

// A tool's body schema is the same object on every call: compacted and written once.
const schemaTexts = new WeakMap<object, string>();

/** A request-body schema as a result's text: large ones compacted, so that every one arrives whole. */
function schemaText(schema: unknown): string {
  if (!isObject(schema)) return JSON.stringify(schema);
  let text = schemaTexts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(compactLargeSchema(schema as JsonSchema));
    schemaTexts.set(schema, text);
  }
  return text;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;
