/**
 * An example call_tool invocation of one tool, derived from its schema: every required
 * argument with a value of its type (an enum's first value, a date for a date, an id of the
 * declared prefix such as `rec…`), and for a tool with a `mode` parameter, `execute` with a
 * request body made the same way from the body's schema. Placeholders, not data: an agent
 * sees the shape of a call before it makes one.
 */
import type { JsonSchema } from '@toolhost/core';
import { sampleValue } from '@toolhost/engine/internal';

/** `{ name, arguments }` for call_tool; `bodySchema` is a mode tool's request body schema. */
export function exampleCall(
  name: string,
  listedSchema: Record<string, unknown> | undefined,
  bodySchema?: Record<string, unknown>,
): { name: string; arguments: Record<string, unknown> } {
  // A listed schema is JSON Schema as the SDK types it (any JSON value); the walker reads it as one.
  const inputSchema = listedSchema as JsonSchema | undefined;
  // The required parameters only: an example shows what a call cannot leave out.
  const properties = inputSchema?.properties ?? {};
  const args: Record<string, unknown> = Object.fromEntries(
    (inputSchema?.required ?? []).map((key) => [key, sampleValue(properties[key], key)]),
  );
  if (bodySchema && 'mode' in args) {
    args.mode = 'execute';
    args.request_body = JSON.stringify(sampleValue(bodySchema as JsonSchema, 'body'));
  }
  return { name, arguments: args };
}
