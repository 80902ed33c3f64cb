import type { JsonSchema } from './json-schema.js';
import { isModeTool, type ToolDeclaration } from './tool-declaration.js';

export const MODE_PARAM = 'mode';
export const REQUEST_BODY_PARAM = 'request_body';
export const TOOL_MODES = ['get_request_schema', 'execute'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/**
 * The tool-facing JSON Schema of a declaration's arguments, as clients see it in the
 * catalog. The mode semantics are explained once in the server's instructions, so the
 * per-tool text stays short.
 */
export function buildInputSchema(decl: ToolDeclaration): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (isModeTool(decl)) {
    properties[MODE_PARAM] = { type: 'string', enum: [...TOOL_MODES] };
    properties[REQUEST_BODY_PARAM] = {
      type: 'string',
      description: 'JSON body as a string; for execute.',
    };
    required.push(MODE_PARAM);
  }
  for (const p of decl.params ?? []) {
    if (p.fromSetting) continue;
    const description =
      p.executeOnly === 'required' ? `${p.description} Required for execute.`.trim() : p.description;
    // A name that says it all needs no description: every token of the catalog is paid per session.
    properties[p.name] = description ? { ...p.schema, description } : { ...p.schema };
    if (p.required) required.push(p.name);
  }
  const schema: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  if (decl.dependentRequired) schema.dependencies = decl.dependentRequired;
  const anyOf = (decl.requiresAnyOf ?? []).map((group) => ({ anyOf: group.map((n) => ({ required: [n] })) }));
  if (anyOf.length === 1) Object.assign(schema, anyOf[0]);
  else if (anyOf.length > 1) schema.allOf = anyOf;
  return schema;
}
