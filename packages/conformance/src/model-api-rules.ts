import type { Tool } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';

// The model APIs publish their tool-definition rules only as prose and as error messages; no
// package offers a checker for them (the vendors' SDKs type the request and let the API refuse
// it). These are those rules, written down as small checkers of our own so a listing the APIs
// would refuse fails a test here instead of every request of a user. OpenAI's strict-mode
// conversion is not among them: the OpenAI Agents SDK's own converter is used for that.

/** What one API says of a tool: nothing when it takes it. */
export type RuleCheck = (tool: Tool) => string[];

type Schema = Record<string, unknown>;

/** Function names both OpenAI and Anthropic accept ("tools.0.name: String should match pattern"). */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** OpenAI answers "string too long" for a function description past this. */
const OPENAI_DESCRIPTION_MAX = 1024;

const ajv = new Ajv2020({ strict: false, validateFormats: false, logger: false });

function topLevelCombinators(schema: Schema, keywords: readonly string[]): string[] {
  return keywords.filter((k) => k in schema).map((k) => `input schema has '${k}' at the top level`);
}

/**
 * Anthropic's Messages API, `tools[].input_schema`: a JSON Schema (draft 2020-12) whose top is
 * `type: "object"` without oneOf/allOf/anyOf ("input_schema does not support oneOf, allOf, or
 * anyOf at the top level"; one such tool fails every request that lists it).
 */
export const anthropicToolRules: RuleCheck = (tool) => {
  const schema = tool.inputSchema as Schema;
  const problems: string[] = [];
  if (!FUNCTION_NAME.test(tool.name)) problems.push(`name does not match ${FUNCTION_NAME}`);
  if (schema.type !== 'object') problems.push(`input_schema.type is ${String(schema.type)}, not "object"`);
  problems.push(...topLevelCombinators(schema, ['oneOf', 'allOf', 'anyOf']));
  if (!ajv.validateSchema(schema)) problems.push(`not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  return problems;
};

/**
 * OpenAI function calling (Chat Completions and Responses, not strict): `parameters` is a JSON
 * Schema object; the API refuses anything but `type: "object"` at the top, and alternatives or
 * negation there ("schema must be a JSON Schema of 'type: \"object\"'").
 */
export const openAiFunctionRules: RuleCheck = (tool) => {
  const schema = tool.inputSchema as Schema;
  const problems: string[] = [];
  if (!FUNCTION_NAME.test(tool.name)) problems.push(`name does not match ${FUNCTION_NAME}`);
  if ((tool.description ?? '').length > OPENAI_DESCRIPTION_MAX)
    problems.push(`description is over ${OPENAI_DESCRIPTION_MAX} characters`);
  if (schema.type !== 'object') problems.push(`parameters.type is ${String(schema.type)}, not "object"`);
  problems.push(...topLevelCombinators(schema, ['oneOf', 'allOf', 'anyOf', 'not', 'enum']));
  const properties = (schema.properties ?? {}) as Schema;
  for (const name of (schema.required ?? []) as string[]) {
    if (!(name in properties)) problems.push(`required '${name}' is not a property`);
  }
  return problems;
};

/**
 * The keywords of `Schema` in the Google GenAI SDK's types (`@google/genai`), the OpenAPI 3.0
 * subset a `FunctionDeclaration.parameters` accepts; the SDK drops `additionalProperties` when
 * it converts a JSON Schema, and the API refuses any other keyword ("Unknown name").
 */
const GEMINI_KEYWORDS = new Set([
  'anyOf',
  'default',
  'description',
  'enum',
  'example',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'nullable',
  'pattern',
  'properties',
  'propertyOrdering',
  'required',
  'title',
  'type',
  'additionalProperties',
]);
/** The SDK's `Type` enum, lowercase as JSON Schema spells it. */
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
/** `FunctionDeclaration.name`: a letter or underscore, then letters, digits, `_.:-`, at most 128. */
const GEMINI_FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;
/** `FunctionDeclaration.parameters`: parameter names are letters, digits and underscores, at most 64. */
const GEMINI_PARAMETER_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

/** Gemini's function declarations: the name rules and the `Schema` subset, at every depth. */
export const geminiFunctionRules: RuleCheck = (tool) => {
  const problems: string[] = [];
  if (!GEMINI_FUNCTION_NAME.test(tool.name)) problems.push(`name does not match ${GEMINI_FUNCTION_NAME}`);
  const schema = tool.inputSchema as Schema;
  if (schema.type !== 'object') problems.push('parameters.type is not "object"');
  for (const name of Object.keys((schema.properties ?? {}) as Schema)) {
    if (!GEMINI_PARAMETER_NAME.test(name)) problems.push(`parameter name '${name}' is not accepted`);
  }
  checkGeminiSchema(schema, 'parameters', problems);
  return problems;
};

function checkGeminiSchema(schema: Schema, at: string, problems: string[]): void {
  for (const key of Object.keys(schema)) {
    if (!GEMINI_KEYWORDS.has(key)) problems.push(`${at}: keyword '${key}' is outside the Schema subset`);
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  for (const t of types) {
    if (typeof t !== 'string' || !GEMINI_TYPES.has(t))
      problems.push(`${at}: type ${String(t)} is not a Type`);
  }
  if (types.length === 1 && types[0] === 'null') problems.push(`${at}: 'null' cannot be the only type`);
  if (schema.type !== undefined && schema.anyOf !== undefined) problems.push(`${at}: both type and anyOf`);
  if (schema.enum !== undefined && !(schema.enum as unknown[]).every((v) => typeof v === 'string'))
    problems.push(`${at}: enum values must be strings`);
  if (schema.items !== undefined) {
    if (Array.isArray(schema.items) || typeof schema.items !== 'object')
      problems.push(`${at}.items: must be one schema`);
    else checkGeminiSchema(schema.items as Schema, `${at}.items`, problems);
  }
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    checkGeminiSchema(child, `${at}.properties.${name}`, problems);
  }
  for (const [i, child] of ((schema.anyOf ?? []) as Schema[]).entries()) {
    checkGeminiSchema(child, `${at}.anyOf[${i}]`, problems);
  }
}

/**
 * What common clients put before a tool's name when they hand it to a model, with the server
 * named `toolhost`: Claude Code `mcp__toolhost__`, VS Code `mcp_toolhost_`. The prefixed name
 * must still pass the APIs' 64 characters.
 */
export const CLIENT_NAME_PREFIXES = { 'Claude Code': 'mcp__toolhost__', 'VS Code': 'mcp_toolhost_' } as const;

/** The prefixed names that the model APIs would refuse. */
export const prefixedNameRules: RuleCheck = (tool) =>
  Object.entries(CLIENT_NAME_PREFIXES)
    .filter(([, prefix]) => !FUNCTION_NAME.test(`${prefix}${tool.name}`))
    .map(([client, prefix]) => `${client} names it ${prefix}${tool.name}, over 64 characters`);
