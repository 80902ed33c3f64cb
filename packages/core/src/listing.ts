import type { JsonSchema } from './json-schema.js';
import type { BehaviorHints } from './tool-declaration.js';

/** MCP tool annotations as a listing carries them; an absent hint reads as MCP's default. */
export interface ListedAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The hints as MCP spells them, every one present. */
export type AnnotationValues = Required<ListedAnnotations>;

/**
 * The hints that differ from MCP's defaults (read-only false, destructive true, idempotent
 * false, open-world true); `destructiveHint` and `idempotentHint` only for tools that write,
 * the only ones MCP defines them for. Absent hints read as the defaults, so the meaning is
 * unchanged and a listing is shorter by a dozen tokens a tool.
 */
export function listedAnnotations(hints: BehaviorHints): ListedAnnotations | undefined {
  const out: ListedAnnotations = {};
  if (hints.readOnly) out.readOnlyHint = true;
  else {
    if (!hints.destructive) out.destructiveHint = false;
    if (hints.idempotent) out.idempotentHint = true;
  }
  if (!hints.openWorld) out.openWorldHint = false;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The reverse, for a reader of a listing: each hint's effective value. */
export function effectiveAnnotations(listed: ListedAnnotations | undefined): AnnotationValues {
  return {
    readOnlyHint: listed?.readOnlyHint ?? false,
    destructiveHint: listed?.destructiveHint ?? true,
    idempotentHint: listed?.idempotentHint ?? false,
    openWorldHint: listed?.openWorldHint ?? true,
  };
}

/**
 * A tool's input schema as listed: without the top-level `additionalProperties: false` (the
 * host refuses unknown parameters itself, naming the accepted ones). Every parameter keeps its
 * type, constraints and text, `mode` and `request_body` included.
 *
 * A tool without parameters keeps it: OpenAI's strict mode (as the Agents SDK converts) reads
 * an object that declares no property and does not close as "any object", which it cannot
 * express, and lists the tool non-strict.
 */
export function listedInputSchema(inputSchema: JsonSchema): JsonSchema {
  const { additionalProperties, ...listed } = inputSchema;
  const parameterless = Object.keys((inputSchema.properties ?? {}) as object).length === 0;
  return additionalProperties === false && !parameterless ? listed : { ...inputSchema };
}
