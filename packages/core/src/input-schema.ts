import type { JsonSchema } from './json-schema.js';
import { isModeTool, type ToolDeclaration } from './tool-declaration.js';

export const MODE_PARAM = 'mode';
export const REQUEST_BODY_PARAM = 'request_body';
export const TOOL_MODES = ['get_request_schema', 'execute'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/**
 * What `mode` and `request_body` mean, said in every mode tool's schema: many clients drop the
 * server instructions, and a deferred catalog shows a tool without them, so the listing
 * itself must carry it. Kept short: it is paid once per mode tool.
 */
export const MODE_DESCRIPTION =
  'execute sends request_body; get_request_schema returns its schema, sends nothing';
export const REQUEST_BODY_DESCRIPTION = 'JSON body as a string, for execute';

/** The tool-facing JSON Schema of a declaration's arguments, as clients see it in the catalog. */
export function buildInputSchema(decl: ToolDeclaration): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (isModeTool(decl)) {
    properties[MODE_PARAM] = { type: 'string', enum: [...TOOL_MODES], description: MODE_DESCRIPTION };
    properties[REQUEST_BODY_PARAM] = { type: 'string', description: REQUEST_BODY_DESCRIPTION };
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
