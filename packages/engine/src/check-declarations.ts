import { createRequire } from 'node:module';
import { TOOL_SET_VOCABULARY, type ToolDeclaration, type ToolSetDefinition } from '@toolhost/core';
import { compileSchema, type ErrorObject, type ValidateFunction } from './ajv-instance.js';

/** One thing wrong with a tool set's declarations: which tool, which field, what. */
export interface DeclarationProblem {
  /** The tool's name within the set, when the problem is in one tool. */
  tool?: string;
  /** Where in the declaration, e.g. `params.baseId.apiName` or `servers.default`. */
  field: string;
  message: string;
}

/** Where an Ajv instance path points, with tools and parameters named rather than numbered. */
function locate(set: ToolSetDefinition, instancePath: string): { tool?: string; field: string } {
  const parts = instancePath.split('/').slice(1);
  if (parts[0] !== 'tools' || parts.length < 2) return { field: parts.join('.') || '(tool set)' };
  const tool = set.tools[Number(parts[1])];
  const rest = parts.slice(2);
  if (rest[0] === 'params' && rest.length >= 2) {
    const param = tool?.params?.[Number(rest[1])];
    rest.splice(0, 2, 'params', param?.name ?? rest[1]!);
  }
  return { tool: tool?.name ?? `#${parts[1]}`, field: rest.join('.') || '(tool)' };
}

function vocabularyProblem(set: ToolSetDefinition, e: ErrorObject): DeclarationProblem | undefined {
  const where = locate(set, e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return {
        ...where,
        field: where.field.startsWith('(')
          ? String(p.additionalProperty)
          : `${where.field}.${p.additionalProperty}`,
        message: `'${p.additionalProperty}' is not part of the declaration vocabulary of this host's contract`,
      };
    case 'required':
      return {
        ...where,
        field: where.field.startsWith('(')
          ? String(p.missingProperty)
          : `${where.field}.${p.missingProperty}`,
        message: 'is required',
      };
    // A oneOf reports each branch's complaint as well; those name the field more precisely.
    case 'oneOf':
    case 'if':
      return undefined;
    default:
      return { ...where, message: e.message ?? e.keyword };
  }
}

function semanticProblems(set: ToolSetDefinition): DeclarationProblem[] {
  const problems: DeclarationProblem[] = [];
  const names = new Set<string>();
  for (const t of set.tools) checkTool(set, t, names, problems);
  return problems;
}

function checkTool(
  set: ToolSetDefinition,
  t: ToolDeclaration,
  names: Set<string>,
  problems: DeclarationProblem[],
): void {
  const problem = (field: string, message: string) => problems.push({ tool: t.name, field, message });
  if (names.has(t.name)) problem('name', 'the tool is declared twice');
  names.add(t.name);
  if (!set.servers[t.server ?? 'default']) problem('server', `unknown server '${t.server}'`);
  const placeholders = [...t.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const params = t.params ?? [];
  const pathNames = params.filter((p) => p.in === 'path').map((p) => p.apiName ?? p.name);
  for (const ph of placeholders) if (!pathNames.includes(ph)) problem('path', `no parameter fills {${ph}}`);
  const seen = new Set<string>();
  for (const p of params) {
    const at = `params.${p.name}`;
    if (seen.has(p.name)) problem(at, 'the parameter is declared twice');
    seen.add(p.name);
    if (p.in === 'path' && !placeholders.includes(p.apiName ?? p.name))
      problem(at, `path parameter ${p.apiName ?? p.name} is not in the path ${t.path}`);
    if (p.apiName !== undefined && p.in === 'body')
      problem(`${at}.apiName`, 'a body field is placed with bodyPath');
    if ((p.bodyPath !== undefined || p.wholeBody) && p.in !== 'body')
      problem(
        `${at}.${p.wholeBody ? 'wholeBody' : 'bodyPath'}`,
        `only body parameters have it, not ${p.in} ones`,
      );
    if (p.wholeBody && p.schema.type !== 'object')
      problem(`${at}.wholeBody`, 'the whole body must be an object');
    if (p.wholeBody && p.bodyPath !== undefined)
      problem(`${at}.bodyPath`, 'a whole-body parameter has no body path');
    if ((p.style === 'prefixed') !== (p.keyPrefix !== undefined))
      problem(`${at}.keyPrefix`, "keyPrefix goes with style 'prefixed', and only with it");
    if (p.style !== undefined && p.in !== 'query')
      problem(`${at}.style`, 'only query parameters have a style');
    if (p.decode && p.schema.type !== 'string')
      problem(`${at}.decode`, 'a decoded parameter must be a string');
    if (p.in === 'body' && t.body?.kind !== 'fields')
      problem(`${at}.in`, "body parameters need body kind 'fields'");
    if (p.executeOnly && t.body?.kind !== 'mode')
      problem(`${at}.executeOnly`, 'only mode tools have execute-only parameters');
    if (p.executeOnly && p.required)
      problem(`${at}.required`, "an execute-only parameter says 'required' in executeOnly");
  }
  for (const name of (t.requiresAnyOf ?? []).flat())
    if (!seen.has(name)) problem('requiresAnyOf', `names unknown parameter ${name}`);
  for (const [name, needed] of Object.entries(t.dependentRequired ?? {}))
    for (const n of [name, ...needed])
      if (!seen.has(n)) problem('dependentRequired', `names unknown parameter ${n}`);
}

const require = createRequire(import.meta.url);
let vocabulary: ValidateFunction | undefined;

/**
 * The vocabulary's validator: the one ajv generated at build time
 * (scripts/compile-vocabulary-validator.mjs), else compiled now (running from source).
 */
function vocabularyValidator(): ValidateFunction {
  if (!vocabulary) {
    try {
      vocabulary = require('./tool-set-vocabulary.generated.cjs') as ValidateFunction;
    } catch {
      vocabulary = compileSchema(TOOL_SET_VOCABULARY);
    }
  }
  return vocabulary;
}

/**
 * Checks a registered tool set against this core's declaration vocabulary and the rules the
 * engine relies on (every placeholder filled, fields used where they mean something). The
 * host runs it on every plugin it loads, so a broken declaration fails the load naming the
 * tool and field instead of failing a user's call later.
 */
export function checkToolSet(set: ToolSetDefinition): DeclarationProblem[] {
  const validate = vocabularyValidator();
  if (!validate(set)) {
    const problems = (validate.errors ?? [])
      .map((e) => vocabularyProblem(set, e))
      .filter((p): p is DeclarationProblem => p !== undefined);
    // Structural problems first: the semantic rules assume the shape is right.
    if (problems.length > 0) return problems;
  }
  return semanticProblems(set);
}

/** Problems as one readable line each: `GridApi.ListRecords params.baseId.apiName: …`. */
export function describeDeclarationProblems(
  toolSet: string,
  problems: readonly DeclarationProblem[],
): string[] {
  return problems.map((p) => `${p.tool ? `${toolSet}.${p.tool}` : toolSet} ${p.field}: ${p.message}`);
}
