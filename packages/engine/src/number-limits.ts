import type { ErrorObject } from './ajv-instance.js';
import { compareDecimals, type Decimal, decimalOf, isIntegral, isMultipleOf } from './exact-decimal.js';
import { decimalValue } from './exact-numbers.js';
import { divides, divisorOf, multipleOfTest } from './multiple-of.js';
import { isObject } from './schema-places.js';

/**
 * A string that stands for a number is validated as its nearest double, and goes out as the
 * literal it holds: where the two differ (past 2^53, or more digits than a double keeps), the
 * double can pass a bound the literal does not (`9223372036854775808` as an int64, whose double
 * is 2^63 - 1's too). There each number keyword of each schema at its place is judged again on
 * the literal's exact value, and the value is refused wherever the two judgments differ, or the
 * exact one cannot be made: a number in the schema past 2^53 is known only as its nearest
 * double, which many literals share.
 */

const SAFE = 2 ** 53;
const INT32 = { min: decimalOf('-2147483648'), max: decimalOf('2147483647') };
const INT64 = { min: decimalOf('-9223372036854775808'), max: decimalOf('9223372036854775807') };

/** A value as its literal's exact decimal and as the double validated. */
interface Both {
  exact: Decimal;
  double: number;
}

/** Undefined where the schema's numbers cannot tell. */
type Verdict = boolean | undefined;

interface Judgment {
  exact: Verdict;
  double: boolean;
  /** The error, where the literal fails: keyword and params as ajv gives them. */
  keyword: string;
  params: Record<string, unknown>;
  /** What the schema wants, in words (`<= 100`, `a multiple of 0.01`). */
  wants: string;
}

/**
 * Whether a schema may take a string at its place, so that a string there is meant as a string:
 * one of type string, or of no type (`{}`, `{maximum: 5}`, `true`), unless it only combines
 * others (allOf, anyOf, oneOf, $ref), each of which is judged on its own.
 */
export function takesStrings(s: unknown): boolean {
  if (typeof s === 'boolean') return s;
  if (!isObject(s)) return true;
  if (s.type !== undefined) {
    const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
    return types.includes('string') || !types.every((t) => typeof t === 'string');
  }
  const combines = ['allOf', 'anyOf', 'oneOf'].some((k) => Array.isArray(s[k]) && s[k].length > 0);
  return !combines && typeof s.$ref !== 'string';
}

/** Whether a number literal's nearest double may be another number than it: those are judged again. */
export function judgedExactly(literal: string): boolean {
  const n = Number(literal);
  return Math.abs(n) >= SAFE || decimalValue(literal) !== decimalValue(String(n));
}

/**
 * Where a schema's number `v` stands from the value: the value's order against it. Below 2^53
 * it is the decimal it writes as (`0.1`); from there up, any literal with that nearest double,
 * so the value's own double orders it against all of them, but where the two are one.
 */
function order(value: Both, v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  if (Math.abs(v) < SAFE) return compareDecimals(value.exact, decimalOf(String(v)));
  return value.double === v ? undefined : Math.sign(value.double - v);
}

const BOUNDS: Record<string, [string, (order: number) => boolean]> = {
  maximum: ['<=', (o) => o <= 0],
  minimum: ['>=', (o) => o >= 0],
  exclusiveMaximum: ['<', (o) => o < 0],
  exclusiveMinimum: ['>', (o) => o > 0],
};

function bound(value: Both, keyword: string, limit: unknown): Judgment {
  const [comparison, holds] = BOUNDS[keyword]!;
  const o = order(value, limit);
  return {
    exact: o === undefined ? undefined : holds(o),
    double: typeof limit === 'number' && holds(Math.sign(value.double - limit)),
    keyword,
    params: { comparison, limit },
    wants: `${comparison} ${String(limit)}`,
  };
}

function multipleOf(value: Both, m: unknown): Judgment {
  const divisor = divisorOf(m);
  return {
    exact: divisor !== undefined && (m as number) < SAFE ? isMultipleOf(value.exact, divisor) : undefined,
    // As the validator judges it (multiple-of.ts): the double's decimal.
    double: typeof m === 'number' && multipleOfTest(m)(value.double),
    keyword: 'multipleOf',
    params: { multipleOf: m },
    wants: `a multiple of ${String(m)}`,
  };
}

/** Whether the value is one of `members`, compared as by ajv's deep equality. */
function among(value: Both, keyword: 'enum' | 'const', members: readonly unknown[]): Judgment {
  let exact: Verdict = false;
  for (const m of members) {
    if (typeof m !== 'number') continue;
    const o = order(value, m);
    if (o === 0) exact = true;
    else if (o === undefined && exact === false) exact = undefined;
  }
  return {
    exact,
    double: members.includes(value.double),
    keyword,
    params: keyword === 'enum' ? { allowedValues: members } : { allowedValue: members[0] },
    wants:
      keyword === 'enum' ? `one of ${JSON.stringify(members)}` : `equal to ${JSON.stringify(members[0])}`,
  };
}

function within(value: Both, range: { min: Decimal; max: Decimal }): boolean {
  const { exact } = value;
  return (
    isIntegral(exact) && compareDecimals(exact, range.min) >= 0 && compareDecimals(exact, range.max) <= 0
  );
}

function format(value: Both, name: unknown): Judgment | undefined {
  const n = value.double;
  let exact: boolean;
  let double: boolean;
  if (name === 'int32') {
    exact = within(value, INT32);
    double = Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
  } else if (name === 'int64') {
    exact = within(value, INT64);
    double = Number.isInteger(n);
  } else {
    // Other formats are a string's, or any number's (float, double).
    return undefined;
  }
  return { exact, double, keyword: 'format', params: { format: name }, wants: `a valid ${name}` };
}

function type(value: Both, t: unknown): Judgment {
  const types: unknown[] = Array.isArray(t) ? t : [t];
  const integer = types.includes('integer');
  const number = types.includes('number');
  return {
    exact: number || (integer && isIntegral(value.exact)),
    double: number || (integer && Number.isInteger(value.double)),
    keyword: 'type',
    params: { type: types.join(',') },
    wants: `of type ${types.join(',')}`,
  };
}

function judgments(value: Both, s: Record<string, unknown>): Judgment[] {
  const out: Judgment[] = [];
  if (s.type !== undefined) out.push(type(value, s.type));
  for (const keyword of Object.keys(BOUNDS))
    if (s[keyword] !== undefined) out.push(bound(value, keyword, s[keyword]));
  if (s.multipleOf !== undefined) out.push(multipleOf(value, s.multipleOf));
  if (Array.isArray(s.enum)) out.push(among(value, 'enum', s.enum));
  if (s.const !== undefined) out.push(among(value, 'const', [s.const]));
  const f = s.format === undefined ? undefined : format(value, s.format);
  if (f) out.push(f);
  return out;
}

function problem(instancePath: string, keyword: string, params: Record<string, unknown>, message: string) {
  return { instancePath, schemaPath: '#', keyword, params, message } satisfies ErrorObject;
}

const both = (literal: string): Both => ({ exact: decimalOf(literal), double: Number(literal) });

/** The problem where a judgment on the literal differs from the one on its double, which the validator made. */
function differs(instancePath: string, j: Judgment): ErrorObject | undefined {
  if (j.exact === j.double) return undefined;
  if (j.exact === false) return problem(instancePath, j.keyword, j.params, `must be ${j.wants}`);
  const why =
    j.exact === undefined
      ? 'past 2^53 (9007199254740992) a number in the schema is known only as its nearest double'
      : 'the schema was checked against its nearest double, which falls on the other side';
  return problem(instancePath, 'numberText', {}, `cannot be checked exactly against ${j.wants}: ${why}`);
}

/** The judgment of the one keyword a validator's error names, from its params (ajv's). */
function judgmentOf(value: Both, e: ErrorObject): Judgment | undefined {
  const p = e.params as Record<string, unknown>;
  if (Object.hasOwn(BOUNDS, e.keyword)) return bound(value, e.keyword, p.limit);
  switch (e.keyword) {
    case 'multipleOf':
      return multipleOf(value, p.multipleOf);
    case 'enum':
      return Array.isArray(p.allowedValues) ? among(value, 'enum', p.allowedValues) : undefined;
    case 'const':
      return among(value, 'const', [p.allowedValue]);
    case 'format':
      return format(value, p.format);
    default:
      return undefined;
  }
}

/**
 * A validator's error at a number literal's place, where its double was validated and may be
 * another number: kept where the literal fails that keyword too; else what the literal cannot
 * be judged against (`exactProblem`'s words), where it sits in the schema.
 */
export function exactError(e: ErrorObject, literal: string): ErrorObject {
  const j = judgmentOf(both(literal), e);
  const found = j && differs(e.instancePath, { ...j, double: false });
  return found ? { ...found, schemaPath: e.schemaPath } : e;
}

/**
 * As `exactProblem`, for `multipleOf` alone: a number of JSON text, validated as its double,
 * whose literal has more digits than the double keeps (see written-multiples.ts).
 */
export function multipleOfProblem(
  instancePath: string,
  literal: string,
  schemas: readonly unknown[],
): ErrorObject | undefined {
  const value = both(literal);
  for (const s of schemas) {
    const found =
      isObject(s) && s.multipleOf !== undefined && differs(instancePath, multipleOf(value, s.multipleOf));
    if (found) return found;
  }
  return undefined;
}

/**
 * A string standing for a number whose literal its double writes back as (`judgedExactly` is
 * false), judged against each `multipleOf` of `schemas` as written alone. Its double passed the
 * validator, which also takes what ajv's division took, for numbers an embedder computed
 * (19 * 0.1 is 1.9000000000000001); a string says its digits, and "1896.6000000000001" is no
 * multiple of 0.1 however its double divides.
 */
export function writtenMultipleProblem(
  instancePath: string,
  literal: string,
  schemas: readonly unknown[],
): ErrorObject | undefined {
  for (const s of schemas) {
    const m = isObject(s) ? s.multipleOf : undefined;
    const divisor = divisorOf(m);
    // Only where the division took it: elsewhere the validator judged its decimal, the literal's,
    // and where it failed, a branch another stood in for (anyOf) refused it as written already.
    if (divisor === undefined || !divides(Number(literal), m as number)) continue;
    if (!isMultipleOf(decimalOf(literal), divisor)) {
      return problem(instancePath, 'multipleOf', { multipleOf: m }, `must be a multiple of ${String(m)}`);
    }
  }
  return undefined;
}

/**
 * The first problem with a number literal, judged exactly against `schemas` (those at its
 * place), where its double passed: the keyword it fails, as ajv would name it, or that it
 * cannot be checked exactly. `listedAbove`: a schema above lists whole values that hold it.
 */
export function exactProblem(
  instancePath: string,
  literal: string,
  schemas: readonly unknown[],
  listedAbove: boolean,
): ErrorObject | undefined {
  const value = both(literal);
  for (const s of schemas) {
    if (!isObject(s)) continue;
    for (const j of judgments(value, s)) {
      const found = differs(instancePath, j);
      if (found) return found;
    }
  }
  if (!listedAbove) return undefined;
  return problem(
    instancePath,
    'numberText',
    {},
    'cannot be checked exactly against the values an enclosing schema lists (enum, const), which it compares as doubles',
  );
}

/** The problem with a literal past a double's range, or closer to zero than its least. */
export function rangeProblem(instancePath: string, literal: string, reason: string): ErrorObject {
  const shown = literal.length > 40 ? `${literal.slice(0, 24)}… (${literal.length} characters)` : literal;
  return problem(
    instancePath,
    'numberText',
    {},
    `holds the number ${shown}, which cannot be sent exactly: ${reason}`,
  );
}
