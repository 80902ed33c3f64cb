import {
  isModeTool,
  type JsonSchema,
  MODE_PARAM,
  type ParamDeclaration,
  REQUEST_BODY_PARAM,
  type ToolDeclaration,
  ToolError,
  type ToolMode,
} from '@toolhost/core';
import { compileSchema } from './ajv-instance.js';
import { describeValidationErrors } from './describe-validation-errors.js';
import { refuseInexactText, refuseInexactValues } from './exact-numbers.js';
import { parseProblem } from './json-fault.js';
import { refuseTooDeep } from './nesting.js';
import { type NumberTexts, validateNumberTexts } from './number-texts.js';
import { plainArguments } from './plain-arguments.js';
import { cut, quoted } from './quoted.js';
import { writtenMultiples } from './written-multiples.js';

export type Arguments = Record<string, unknown>;

// Each tool's listed schema, closed: the same object on every call, so compiled once.
const closedSchemas = new WeakMap<JsonSchema, JsonSchema>();

/**
 * The listed schema with unknown parameters refused. The listing leaves the object open (see
 * `buildInputSchema`); a call must still name only parameters the tool has, so that a
 * misspelled one is an error naming the accepted ones rather than silently ignored.
 */
function closed(inputSchema: JsonSchema): JsonSchema {
  let schema = closedSchemas.get(inputSchema);
  if (!schema) {
    schema = { ...inputSchema, additionalProperties: false };
    closedSchemas.set(inputSchema, schema);
  }
  return schema;
}

export interface ValidatedArguments {
  mode: ToolMode | undefined;
  args: Arguments;
  /** By parameter, where its value holds strings that stand for numbers (`number-texts`). */
  numberTexts: Map<string, NumberTexts>;
}

/**
 * Checks a call's arguments against the tool's input schema before anything is sent.
 * In get_request_schema, the execute-only parameters (the spec's (x) and (xo), and request_body) are ignored
 * as the spec says, so stale values left in by an agent do not fail a schema lookup.
 */
export function validateArguments(
  decl: ToolDeclaration,
  inputSchema: JsonSchema,
  raw: unknown,
): ValidatedArguments {
  refuseManyUnknown(decl, inputSchema, raw);
  // The top copied again (a few members), since it is changed below; what is under it is shared.
  let args: Arguments = { ...plainArguments(raw) };
  let mode: ToolMode | undefined;
  if (isModeTool(decl) && args[MODE_PARAM] === 'get_request_schema') {
    mode = 'get_request_schema';
    const executeOnly = new Set((decl.params ?? []).filter((p) => p.executeOnly).map((p) => p.name));
    executeOnly.add(REQUEST_BODY_PARAM);
    args = Object.fromEntries(Object.entries(args).filter(([k]) => !executeOnly.has(k)));
  }

  checkAcrossParameters(decl, args);

  // Models often send request_body as the JSON itself rather than as its text. It is taken as
  // given and checked against the body schema like parsed text (parseRequestBody); the schema
  // keeps `type: string`, since a union with an open object is outside OpenAI's strict mode.
  const structuredBody = isModeTool(decl) ? structured(args[REQUEST_BODY_PARAM]) : undefined;
  if (structuredBody !== undefined) delete args[REQUEST_BODY_PARAM];
  const numberTexts = checkAgainstSchema(inputSchema, args);

  if (structuredBody !== undefined) args[REQUEST_BODY_PARAM] = structuredBody;

  for (const p of decl.params ?? []) {
    if (p.decode && typeof args[p.name] === 'string') {
      args[p.name] = decodeParameter(p.name, p.decode, args[p.name] as string);
      numberTexts.delete(p.name);
    }
  }

  if (isModeTool(decl) && mode === undefined) {
    mode = 'execute';
    checkExecuteNeeds(decl, args);
  }
  return { mode, args, numberTexts };
}

/**
 * Rules across parameters (at least one of a group; one needing another) are not in the listed
 * schema (model APIs refuse them there), so they are checked here, ahead of the schema.
 */
function checkAcrossParameters(decl: ToolDeclaration, args: Arguments): void {
  for (const group of decl.requiresAnyOf ?? []) {
    if (group.every((name) => args[name] === undefined)) {
      throw ToolError.invalidArgument(
        group[0]!,
        `Give at least one of the parameters ${group.map((n) => `'${n}'`).join(', ')}.`,
      );
    }
  }
  for (const [name, needed] of Object.entries(decl.dependentRequired ?? {})) {
    if (args[name] === undefined) continue;
    const missing = needed.find((n) => args[n] === undefined);
    if (missing !== undefined) {
      throw ToolError.invalidArgument(missing, `Parameter '${missing}' is required when '${name}' is given.`);
    }
  }
}

/**
 * Problems named in one message, and unknown parameters among them: past these, how many more.
 * Every one was named, each unknown one with the accepted list again, so a request of a few
 * MB with hundreds of thousands of keys was answered with a message of tens of MB.
 */
const MAX_NAMED = 8;

/** A parameter name the caller wrote, of any length, as an error shows it: its first 64 characters. */
export const shortened = (name: string) => cut(name, 64);
const more = (count: number, what: string) => (count > 0 ? ` and ${count} more ${what}` : '');

/**
 * The arguments against the tool's schema, closed: every problem in one message, within bounds.
 * Answers where they hold strings that stand for numbers, by parameter.
 */
function checkAgainstSchema(inputSchema: JsonSchema, args: Arguments): Map<string, NumberTexts> {
  const properties = inputSchema.properties ?? {};
  // Unknown parameters found here, not by the validator, which walks each of them.
  const unknown = Object.keys(args).filter((k) => !Object.hasOwn(properties, k));
  const known =
    unknown.length === 0
      ? args
      : Object.fromEntries(Object.entries(args).filter(([k]) => Object.hasOwn(properties, k)));
  const { errors, texts } = validateNumberTexts(compileSchema(closed(inputSchema)), known);
  const problems = describeValidationErrors(errors);
  if (problems.length === 0 && unknown.length === 0) return texts instanceof Map ? texts : new Map();
  const text = problems.slice(0, MAX_NAMED).map((p) => `Parameter ${quoted(shortened(p.at))} ${p.message}.`);
  if (problems.length > MAX_NAMED) text.push(`(${problems.length - MAX_NAMED} more problems.)`);
  if (unknown.length > 0) text.push(unknownParameters(unknown, properties));
  throw ToolError.invalidArgument(shortened(problems[0]?.at ?? unknown[0] ?? 'arguments'), text.join(' '));
}

function unknownParameters(unknown: readonly string[], properties: object): string {
  const named = unknown.slice(0, MAX_NAMED).map((k) => quoted(shortened(k)));
  return `Unknown parameter${unknown.length > 1 ? 's' : ''} ${named.join(', ')}${more(unknown.length - named.length, 'unknown')} (accepted: ${Object.keys(properties).join(', ') || 'none'}).`;
}

/**
 * More arguments than the tool has parameters: some are unknown, refused before they are
 * copied or walked, beside what the known ones fail. A call of 100,000 made-up keys (a MB of
 * JSON) held the event loop for seconds in the copy, its spread and the filters, every other
 * caller of the host waiting.
 */
export function refuseManyUnknown(decl: ToolDeclaration, inputSchema: JsonSchema, raw: unknown): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  const properties = inputSchema.properties ?? {};
  let keys: string[];
  let known: Record<string, unknown>;
  let unknown: string[];
  try {
    keys = Object.keys(raw);
    if (keys.length <= Object.keys(properties).length) return;
    const given = raw as Record<string, unknown>;
    known = Object.fromEntries(
      Object.keys(properties)
        .filter((k) => Object.hasOwn(given, k))
        .map((k) => [k, given[k]]),
    );
    // One holding undefined is not given (the copy leaves it out), as in JSON it could not be.
    unknown = keys.filter((k) => !Object.hasOwn(properties, k) && given[k] !== undefined);
  } catch {
    return; // Unreadable (a Proxy's trap or a getter threw): the copy says so, naming it.
  }
  if (unknown.length === 0) return;
  let parameter = shortened(unknown[0]!);
  let problems = '';
  try {
    validateArguments(decl, inputSchema, known);
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    problems = `${e.message} `;
    parameter = e.info.parameter ?? parameter;
  }
  throw ToolError.invalidArgument(parameter, `${problems}${unknownParameters(unknown, properties)}`);
}

/** What execute needs beyond the schema: request_body and the (x) parameters, all reported at once. */
function checkExecuteNeeds(decl: ToolDeclaration, args: Arguments): void {
  const missing = (decl.params ?? []).filter(
    (p) => p.executeOnly === 'required' && args[p.name] === undefined,
  );
  // Everything execute needs is reported at once, so a caller fixes it in one round trip.
  const problems = missing.map((p) => `Parameter '${p.name}' is required when mode is execute.`);
  if (args[REQUEST_BODY_PARAM] === undefined) {
    problems.unshift(
      `Parameter '${REQUEST_BODY_PARAM}' is required when mode is execute (a JSON string; call with mode get_request_schema to see its schema).`,
    );
  }
  if (problems.length > 0) {
    const first = args[REQUEST_BODY_PARAM] === undefined ? REQUEST_BODY_PARAM : missing[0]!.name;
    throw ToolError.invalidArgument(first, problems.join(' '));
  }
}

/** Turns a string parameter's text into the structure it describes; errors name the parameter. */
function decodeParameter(
  name: string,
  decode: NonNullable<ParamDeclaration['decode']>,
  text: string,
): unknown {
  if (decode.kind === 'split') {
    return text
      .split(decode.separator)
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw ToolError.invalidArgument(name, `Parameter '${name}' is not valid JSON: ${parseProblem(e, text)}.`);
  }
  refuseTooDeep(name, value);
  const validate = compileSchema(decode.schema);
  if (!validate(value)) {
    const problems = describeValidationErrors(validate.errors ?? [], name);
    throw ToolError.invalidArgument(
      problems[0]?.at ?? name,
      `Parameter '${name}' does not hold the expected JSON: ${problems
        .slice(0, 8)
        .map((p) => `${p.at} ${p.message}`)
        .join('; ')}.`,
    );
  }
  return value;
}

/** A JSON object or array given as itself, not as text. */
function structured(value: unknown): object | undefined {
  return typeof value === 'object' && value !== null ? value : undefined;
}

/** A mode tool's request_body, parsed and valid, and where it holds strings that stand for numbers. */
export interface RequestBody {
  value: unknown;
  numberTexts?: NumberTexts;
}

/**
 * Parses and validates a mode tool's request_body, given as JSON text or as the JSON object
 * (or array) itself; errors name the JSON path at fault.
 */
export function parseRequestBody(raw: unknown, schema: JsonSchema): RequestBody {
  let body: unknown = structured(raw);
  if (body === undefined) {
    if (typeof raw !== 'string') {
      throw ToolError.invalidArgument(
        REQUEST_BODY_PARAM,
        `Parameter '${REQUEST_BODY_PARAM}' must be a JSON string or a JSON object.`,
      );
    }
    try {
      body = JSON.parse(raw);
    } catch (e) {
      throw ToolError.invalidArgument(
        REQUEST_BODY_PARAM,
        `Parameter '${REQUEST_BODY_PARAM}' is not valid JSON: ${parseProblem(e, raw)}.`,
      );
    }
    refuseTooDeep(REQUEST_BODY_PARAM, body);
  }
  const { errors, texts } = validateNumberTexts(compileSchema(schema), body);
  if (errors.length === 0 && typeof raw === 'string') errors.push(...writtenMultiples(schema, raw, body));
  if (errors.length > 0) {
    const problems = describeValidationErrors(errors, REQUEST_BODY_PARAM);
    throw ToolError.invalidArgument(
      problems[0]?.at ?? REQUEST_BODY_PARAM,
      `The request body does not match its schema: ${problems
        .slice(0, 8)
        .map((p) => `${p.at} ${p.message}`)
        .join('; ')}.`,
    );
  }
  // The text, where there is one, says what was meant; a structure given is judged as it came.
  if (typeof raw === 'string') refuseInexactText(REQUEST_BODY_PARAM, raw, body);
  else refuseInexactValues(REQUEST_BODY_PARAM, body);
  return texts === undefined ? { value: body } : { value: body, numberTexts: texts };
}
