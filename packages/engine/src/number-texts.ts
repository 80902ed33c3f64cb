import type { ErrorObject, ValidateFunction } from './ajv-instance.js';
import { JSON_NUMBER, outOfRange } from './exact-numbers.js';
import { pointerKeys, valueAt } from './json-pointer.js';
import {
  exactError,
  exactProblem,
  judgedExactly,
  rangeProblem,
  takesStrings,
  writtenMultipleProblem,
} from './number-limits.js';
import { SchemaPlaces } from './schema-places.js';
import { firstDuplicate } from './unique-literals.js';

/**
 * An id past 2^53 reaches the agent as the string of its literal (`parseAnswerJson`), since
 * a double would change it. The agent copies it where the API wants that id back, a field of
 * type integer, and the call was refused: a string is not an integer. Where the schema refuses
 * a string only for its type, and the type is integer (or number) and the string an integer
 * (or any JSON number) literal, the string stands for the number it spells: validated as its
 * nearest double and, where that may be another number, on the literal itself (bounds, formats,
 * enum, uniqueItems), and on `multipleOf` as written always, and sent as the bare literal,
 * digit for digit. Where any schema at its place takes a string, it is meant as one, and stays
 * one.
 */

/** Where in a value such strings are: `true` at one, and the keys leading to them above. */
export type NumberTexts = true | Map<string, NumberTexts>;

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;

/** The literal a string must be to stand for the `type` a schema wanted there (ajv's `params.type`). */
function literalFor(type: unknown): RegExp | undefined {
  const types: unknown[] = Array.isArray(type) ? type : [type];
  if (types.includes('number')) return JSON_NUMBER;
  return types.includes('integer') ? INTEGER_TEXT : undefined;
}

/** The texts of `root` under `keys`, maps made along the way (a mark on the way replaced by one). */
export function textsWithin(
  root: Map<string, NumberTexts>,
  keys: readonly string[],
): Map<string, NumberTexts> {
  let node = root;
  for (const key of keys) {
    let next = node.get(key);
    if (!(next instanceof Map)) {
      next = new Map();
      node.set(key, next);
    }
    node = next;
  }
  return node;
}

/** `texts` with the string at `keys` added. */
function withText(texts: NumberTexts | undefined, keys: readonly string[]): NumberTexts {
  if (keys.length === 0) return true;
  const root = texts instanceof Map ? texts : new Map<string, NumberTexts>();
  textsWithin(root, keys.slice(0, -1)).set(keys[keys.length - 1]!, true);
  return root;
}

/** A copy of `value` with each string `texts` marks replaced by its number; the rest shared. */
function withNumbers(value: unknown, texts: NumberTexts): unknown {
  if (texts === true) return Number(value);
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string, unknown>;
  for (const [key, inner] of texts) copy[key] = withNumbers(copy[key], inner);
  return copy;
}

export interface NumberTextsCheck {
  /** Ajv's errors, none when the value is valid. */
  errors: ErrorObject[];
  /** Where the value holds strings taken as numbers; absent where it holds none. */
  texts?: NumberTexts;
}

/** A string the schema refused at its place only for not being the number it spells. */
interface StandIn {
  at: string;
  keys: string[];
  text: string;
  schemas: readonly unknown[];
  listedAbove: boolean;
  branched: boolean;
}

// What a string draws at a place where only numbers are wanted: `type`, the `enum` or `const`
// of a number's schema, and the anyOf or oneOf of those. Anything else (`pattern`, `maxLength`)
// came from a schema that takes strings, and there a string is meant as one.
const NUMBER_PLACE = new Set(['type', 'enum', 'const', 'anyOf', 'oneOf']);

/**
 * The strings that stand for numbers: refused for their type by a schema wanting an integer
 * (or a number) whose literal they are, at a place where no schema takes a string: not one of
 * type string, nor one of no type (see `takesStrings`), in any branch.
 */
function standIns(validate: ValidateFunction, value: unknown, errors: ErrorObject[]): StandIn[] {
  let places: SchemaPlaces | undefined;
  const found: StandIn[] = [];
  for (const [at, list] of groupedByPlace(errors)) {
    const keys = pointerKeys(at);
    const text = valueAt(value, keys);
    if (typeof text !== 'string' || !list.every((e) => NUMBER_PLACE.has(e.keyword))) continue;
    if (!list.some((e) => e.keyword === 'type' && literalFor(e.params.type)?.test(text))) continue;
    places ??= new SchemaPlaces(validate.schema, value);
    const { schemas, listedAbove, branched } = places.at(keys);
    if (schemas === undefined || schemas.some(takesStrings)) continue;
    found.push({ at, keys, text, schemas, listedAbove, branched });
  }
  return found;
}

/**
 * Validates `value`, taking each string that stands for a number (see above) as that number:
 * a copy with their numbers in their place is validated again, and each whose double may be
 * another number than its literal is judged again on the literal (`number-limits`), the others
 * on `multipleOf` as written, without the leniency of ajv's division, which is for numbers. A
 * literal past a double's range, or nearer to zero than its least, is refused. `value` is left
 * as given.
 *
 * Where the copy fails, the errors are the first pass's, less those at strings the copy took
 * as valid numbers (an agent told that a good id "must be of type integer" would send it as a
 * number, rounded), and at strings the copy refused, what the copy found there: the bound the
 * number fails, judged on the literal where its double may be another number, not its type;
 * at strings the copy took, what their literals fail, as where the copy passed. Where none of
 * the first pass's is left (the copy failed only where the strings were fine, e.g. two that
 * are one number), the copy's.
 */
export function validateNumberTexts(validate: ValidateFunction, value: unknown): NumberTextsCheck {
  if (validate(value)) return { errors: [] };
  const first = [...(validate.errors ?? [])];
  const found = standIns(validate, value, first);
  const told = new Map<string, ErrorObject[]>();
  let texts: NumberTexts | undefined;
  for (const s of found) {
    const range = outOfRange(s.text);
    if (range === undefined) texts = withText(texts, s.keys);
    else told.set(s.at, [rangeProblem(s.at, s.text, range.reason)]);
  }
  if (texts === undefined) return { errors: replaced(first, told, new Set()).out };
  const copy = withNumbers(value, texts);
  const literals = new Map(found.filter((s) => judgedExactly(s.text)).map((s) => [s.at, s.text]));
  const second: ErrorObject[] = [];
  for (const e of validate(copy) ? [] : (validate.errors ?? [])) {
    const kept = told.has(e.instancePath) ? undefined : exactly(e, value, texts, literals);
    if (kept) second.push(kept);
  }
  if (second.length === 0) {
    const problems: ErrorObject[] = [];
    for (const s of found) {
      const problem = told.get(s.at)?.[0] ?? literalProblem(s, literals.has(s.at));
      if (problem) problems.push(problem);
    }
    return problems.length > 0 ? { errors: problems } : { errors: [], texts };
  }
  const byPlace = groupedByPlace(second);
  const fine = new Set<string>();
  for (const s of found) {
    if (told.has(s.at)) continue;
    const there = byPlace.get(s.at);
    const problem = there ? undefined : literalProblem(s, literals.has(s.at));
    if (there) told.set(s.at, there);
    else if (problem) told.set(s.at, [problem]);
    else fine.add(s.at);
  }
  const { out, own } = replaced(first, told, fine);
  return { errors: own > 0 ? out : [...out, ...second.filter((e) => !told.has(e.instancePath))] };
}

/**
 * What the literal of a string taken as a number fails where its double passed: where that
 * double may be another number (`exactly`), any keyword judged again on the literal; else
 * `multipleOf`, which the double may pass by ajv's division where the digits written do not.
 */
function literalProblem(s: StandIn, exactly: boolean): ErrorObject | undefined {
  if (exactly) return exactProblem(s.at, s.text, s.schemas, s.listedAbove);
  // A `multipleOf` in a branch the double did not need (the other of an anyOf, an if's) binds
  // nothing: judged as written only where every schema gathered is one the place must pass.
  return s.branched ? undefined : writtenMultipleProblem(s.at, s.text, s.schemas);
}

function groupedByPlace(errors: readonly ErrorObject[]): Map<string, ErrorObject[]> {
  const byPlace = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPlace.get(e.instancePath);
    if (list) list.push(e);
    else byPlace.set(e.instancePath, [e]);
  }
  return byPlace;
}

/**
 * An error of the copy as it stands for the value: at a string whose double may be another
 * number than its literal (`literals`, by place), judged on the literal (`exactError`);
 * `uniqueItems` on an array holding strings taken as numbers judged again on their literals,
 * dropped where the items are distinct.
 */
function exactly(
  e: ErrorObject,
  value: unknown,
  texts: NumberTexts,
  literals: ReadonlyMap<string, string>,
): ErrorObject | undefined {
  const literal = literals.get(e.instancePath);
  if (literal !== undefined) return exactError(e, literal);
  if (e.keyword !== 'uniqueItems') return e;
  const keys = pointerKeys(e.instancePath);
  let marked: NumberTexts | undefined = texts;
  for (const key of keys) marked = marked instanceof Map ? marked.get(key) : undefined;
  const items = valueAt(value, keys);
  if (!(marked instanceof Map) || !Array.isArray(items)) return e;
  const pair = firstDuplicate(items, marked);
  if (pair === undefined) return undefined;
  const [i, j] = pair;
  return {
    ...e,
    params: { i, j },
    message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
  };
}

/**
 * `errors` in order, those at a place `told` names replaced by what it tells there, those at a
 * fine place left out; `own`: how many were kept as they were.
 */
function replaced(
  errors: ErrorObject[],
  told: ReadonlyMap<string, ErrorObject[]>,
  fine: ReadonlySet<string>,
): { out: ErrorObject[]; own: number } {
  const out: ErrorObject[] = [];
  const done = new Set<string>();
  let own = 0;
  for (const e of errors) {
    const problems = told.get(e.instancePath);
    if (problems === undefined) {
      if (!fine.has(e.instancePath)) {
        out.push(e);
        own += 1;
      }
    } else if (!done.has(e.instancePath)) {
      done.add(e.instancePath);
      out.push(...problems);
    }
  }
  return { out, own };
}

/** The number texts of the value under `key`. */
export function textsUnder(texts: NumberTexts | undefined, key: string | number): NumberTexts | undefined {
  return texts instanceof Map ? texts.get(String(key)) : undefined;
}

/**
 * JSON text of `value` as JSON.stringify writes it, but each string `texts` marks as the bare
 * number literal it holds, as written: JSON.stringify can only quote it, or write a double.
 */
export function stringifyWithNumbers(value: unknown, texts: NumberTexts | undefined): string {
  return written(value, texts) as string;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

function written(value: unknown, texts: NumberTexts | undefined): string | undefined {
  if (texts === true && typeof value === 'string' && JSON_NUMBER.test(value)) return value;
  // An object with a toJSON is written as JSON.stringify writes what that answers, strings quoted.
  if (!(texts instanceof Map) || value === null || typeof value !== 'object' || hasToJson(value))
    return JSON.stringify(value);
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) parts.push(written(value[i], texts.get(String(i))) ?? 'null');
    return `[${parts.join(',')}]`;
  }
  for (const key of Object.keys(value)) {
    const member = written((value as Record<string, unknown>)[key], texts.get(key));
    if (member !== undefined) parts.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${parts.join(',')}}`;
}
