import type { CodeKeywordDefinition } from 'ajv';
import { type Decimal, decimalOf, isMultipleOf } from './exact-decimal.js';

/**
 * `multipleOf` judged on decimals. ajv divides doubles: 0.07 / 0.01 is 7.000000000000001, so an
 * amount of 7 cents was refused as no multiple of 0.01, and 0.29 / 0.01 alike. A number is
 * judged here as the decimal it writes as (String(n), its shortest text that reads back as it,
 * which is what JSON.stringify sends), the divisor as the one it writes as, exactly, whatever
 * their size: 0.07 is a multiple of 0.01, 0.071 is not, 12345678901234567000 is of 1000; where
 * ajv's division already accepts, that stands too (what it accepted before is not refused now).
 *
 * The exact decimal (BigInt digits) costs some microseconds a number, and a body of 100,000
 * amounts had every one of them take it: each divisor gets the quickest test that reaches the
 * same verdict (scripts/bench-multiple-of.mjs measures them).
 */

/** The divisor as the decimal it writes as; undefined for one no number is a multiple of (0, negative). */
export function divisorOf(m: unknown): Decimal | undefined {
  return typeof m === 'number' && m > 0 && Number.isFinite(m) ? decimalOf(String(m)) : undefined;
}

/**
 * ajv's own test, `n / m === parseInt(n / m)`, without the string parseInt reads: String(q) of
 * an integer below 1e21 is its digits, which read back as q; from 1e21 up it is `1e+21`, read
 * as 1, and no other quotient reads back as itself.
 */
export function divides(n: number, m: number): boolean {
  const quotient = n / m;
  return Number.isInteger(quotient) && Math.abs(quotient) < 1e21;
}

/**
 * The test of a number against `m`: whether it is a multiple as ajv's division takes it, or
 * as the decimal String(n) writes. Each kind of divisor gets its quickest path to the verdict
 * of those two, the division first, which takes most multiples:
 * - a safe integer: a safe integer number by its remainder alone (both decimals are the
 *   doubles themselves, and there the division takes exactly the multiples); a number with a
 *   fraction by the division alone (its decimal has a fraction too);
 * - q × 10^-k, k up to 22 (0.01, 0.25, 1e-7): the written decimal scaled (`scaledDecimal`);
 * - anything else (an integer past 2^53, 1e-30, 0.30000000000000004) by the exact decimal.
 * Not a divisor above zero (Infinity; ajv refuses 0 and below): ajv's division alone.
 */
export function multipleOfTest(m: number): (n: number) => boolean {
  const divisor = divisorOf(m);
  if (divisor === undefined) return (n) => divides(n, m);
  if (Number.isSafeInteger(m)) {
    return (n) =>
      Number.isSafeInteger(n) ? n % m === 0 : divides(n, m) || (Number.isInteger(n) && exact(n, divisor));
  }
  const k = -divisor.exponent;
  const q = Number(divisor.digits);
  if (k < 1 || k > 22 || !Number.isSafeInteger(q)) return (n) => divides(n, m) || exact(n, divisor);
  const scale = 10 ** k;
  return (n) => {
    if (divides(n, m)) return true;
    const r = scaledDecimal(n, scale);
    return r === undefined ? exact(n, divisor) : r !== false && r % q === 0;
  };
}

/**
 * String(n) × `scale` (10^k, k up to 22, so exact) where that is an integer below 2^49, else
 * false; undefined where n is too large to tell so. Without String(n): were it r × 10^-k, then
 * r × 10^-k reads back as n, and r is the integer nearest n × scale (n is within 2^-53 of any
 * decimal that reads as it, so n × scale within 2^-52 of r, far below 1/2). Conversely, where
 * r / scale (r and scale exact, so rounded once, as reading r × 10^-k rounds) is n, some
 * decimal of at most k places reads as n, and String(n), the one of fewest digits, has no more
 * places than it: it is r × 10^-k.
 */
function scaledDecimal(n: number, scale: number): number | false | undefined {
  const s = n * scale;
  if (!(Math.abs(s) < 2 ** 49)) return undefined;
  const r = Math.round(s);
  return r / scale === n ? r : false;
}

/** The verdict of the exact decimals, the last resort. */
function exact(n: number, divisor: Decimal): boolean {
  return Number.isFinite(n) && isMultipleOf(decimalOf(String(n)), divisor);
}

/** ajv's code generator, `_` and `str`, which its error messages are written with. */
interface Codegen {
  _: typeof import('ajv')._;
  str: typeof import('ajv').str;
}

/**
 * The keyword that stands in for ajv's own `multipleOf` (the same name, error and params, in
 * the words the engine's exact checks use), on every number wherever a schema has it. Its code
 * calls the test with the number alone: a `compile` keyword is called with a context object
 * made for each number, which took as long as the test.
 */
export function exactMultipleOf({ _, str }: Codegen): CodeKeywordDefinition {
  return {
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    code(cxt) {
      const test = cxt.gen.scopeValue('keyword', { ref: multipleOfTest(cxt.schema as number) });
      cxt.fail(_`!${test}(${cxt.data})`);
    },
    error: {
      message: ({ schemaCode }) => str`must be a multiple of ${schemaCode}`,
      params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
    },
  };
}
