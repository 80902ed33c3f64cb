import type { JsonSchema, ToolOutcome } from '@toolhost/core';
import { checkAgainstSchema } from '@toolhost/engine';
import { isObject, quoted, shortened } from '@toolhost/engine/internal';
import type { Tool } from './sdk.js';

/**
 * The bounds of the host's own tools' arguments. Every one is bounded so that no request can
 * make the host work on its event loop for long (a search's cost grows with the words of its
 * query); the bounds are far above what a call needs.
 */
export const HOST_TOOL_LIMITS = {
  /** A task in plain words: a sentence or two. */
  queryLength: 500,
  /** A tool name in either spelling (`Set_Tool`, `Set.Tool`); the longest are under 100. */
  nameLength: 200,
  /** `pv_` and 22 base64url characters; room for another id scheme. */
  previewIdLength: 100,
} as const;

/**
 * Checks a host tool's arguments against the input schema it lists, with the validator and
 * the words plugin tools' arguments get: an `invalid_argument` naming the first parameter at
 * fault, or undefined when they fit.
 */
export function checkHostToolArguments(tool: Tool, args: unknown): ToolOutcome | undefined {
  if (!isObject(args)) return invalid('arguments', 'Arguments must be a JSON object of named parameters.');
  const oversized = beyondBounds(tool, args);
  if (oversized) return oversized;
  const problems = checkAgainstSchema(tool.inputSchema as JsonSchema, args);
  const first = problems[0];
  if (!first) return undefined;
  const text = problems
    .slice(0, 8)
    .map((p) => `Parameter ${quoted(p.at)} ${p.message}.`)
    .join(' ');
  return invalid(first.at, text);
}

/**
 * What the validator would refuse anyway, found without it: it reports every unknown property
 * and every wrong item, and an object of a hundred thousand keys (or a list of as many items)
 * would be that many reports, all made on the event loop. Strings are compared by length in
 * UTF-16 units, at most twice their length in characters (which the schema then checks).
 */
function beyondBounds(tool: Tool, args: Record<string, unknown>): ToolOutcome | undefined {
  const properties = (tool.inputSchema.properties ?? {}) as Record<
    string,
    { maxItems?: number; maxLength?: number }
  >;
  const accepted = Object.keys(properties);
  for (const key in args) {
    if (!accepted.includes(key))
      return invalid(
        shortened(key),
        `Unknown parameter ${quoted(shortened(key))} (accepted: ${accepted.join(', ')}).`,
      );
    const value = args[key];
    const { maxItems, maxLength } = properties[key]!;
    if (maxItems !== undefined && Array.isArray(value) && value.length > maxItems)
      return invalid(key, `Parameter '${key}' must NOT have more than ${maxItems} items.`);
    if (maxLength !== undefined && typeof value === 'string' && value.length > 2 * maxLength)
      return invalid(key, `Parameter '${key}' must NOT have more than ${maxLength} characters.`);
  }
  return undefined;
}

/** The outcome of an argument refused before any call. */
export function invalid(parameter: string, message: string): ToolOutcome {
  return { ok: false, error: { code: 'invalid_argument', message, retryable: false, parameter } };
}
