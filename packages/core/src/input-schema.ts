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

/**
 * The tool-facing JSON Schema of a declaration's arguments, as clients see it in the catalog.
 *
 * Rules across parameters (`requiresAnyOf`, `dependentRequired`) are not in it: the model APIs
 * agents run on refuse `anyOf`/`oneOf`/`allOf` at the top of a tool's schema (Anthropic answers
 * every request that lists such a tool with 400), and `dependencies` is outside the subsets
 * OpenAI and Gemini accept. The engine checks those rules itself, and `parameterRules` says them
 * in the tool's description.
 *
 * The object is left open: the engine refuses an unknown parameter itself, naming the accepted
 * ones, and `additionalProperties: false` on every tool would be paid in every listing. A tool
 * without parameters closes it: OpenAI's strict mode (as the Agents SDK converts) reads an object
 * that declares no property and does not close as "any object", which it cannot express, and
 * lists the tool non-strict.
 */
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
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  if (Object.keys(properties).length === 0) schema.additionalProperties = false;
  return schema;
}

/** The cross-parameter rules of a declaration in words, one sentence each, for its description. */
export function parameterRules(decl: ToolDeclaration): string[] {
  const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');
  const rules = (decl.requiresAnyOf ?? []).map((group) => `Give at least one of ${quoted(group)}.`);
  for (const [name, needed] of Object.entries(decl.dependentRequired ?? {})) {
    rules.push(`'${name}' needs ${quoted(needed)} as well.`);
  }
  return rules;
}

/** A declaration's description with its cross-parameter rules appended, as a catalog lists it. */
export function describeTool(decl: ToolDeclaration): string {
  const rules = parameterRules(decl);
  return rules.length === 0 ? decl.description : `${decl.description} ${rules.join(' ')}`;
}
