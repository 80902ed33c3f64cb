import type { FuncKeywordDefinition } from 'ajv';
import { type Decimal, decimalOf, isMultipleOf } from './exact-decimal.js';

/**
 * `multipleOf` judged on decimals. ajv divides doubles: 0.07 / 0.01 is 7.000000000000001, so an
 * amount of 7 cents was refused as no multiple of 0.01, and 0.29 / 0.01 alike. A number is
 * judged here as the decimal it writes as (String(n), its shortest text that reads back as it,
 * which is what JSON.stringify sends), the divisor as the one it writes as, exactly, whatever
 * their size: 0.07 is a multiple of 0.01, 0.071 is not, 12345678901234567000 is of 1000; where
 * ajv's division already accepts, that stands too (what it accepted before is not refused now).
 */

/** The divisor as the decimal it writes as; undefined for one no number is a multiple of (0, negative). */
export function divisorOf(m: unknown): Decimal | undefined {
  return typeof m === 'number' && m > 0 && Number.isFinite(m) ? decimalOf(String(m)) : undefined;
}

/**
 * Whether `n` is a multiple of `m` (its decimal `divisor`): as ajv judged it, dividing doubles, or
 * as the decimal String(n) writes. ajv's judgement stands where it accepts, so an amount an
 * embedder computed (19 * 0.1 is 1.9000000000000001) is refused no more than before; it is also
 * the quick answer for most numbers.
 */
export function isMultipleOfNumber(n: number, m: number, divisor: Decimal | undefined): boolean {
  const quotient = n / m;
  if (m !== 0 && quotient === Number.parseInt(String(quotient), 10)) return true;
  return divisor !== undefined && Number.isFinite(n) && isMultipleOf(decimalOf(String(n)), divisor);
}

/** ajv's code generator, `_` and `str`, which its error messages are written with. */
interface Codegen {
  _: typeof import('ajv')._;
  str: typeof import('ajv').str;
}

/**
 * The keyword that stands in for ajv's own `multipleOf` (the same name, error and params, in
 * the words the engine's exact checks use), on every number wherever a schema has it.
 */
export function exactMultipleOf({ _, str }: Codegen): FuncKeywordDefinition {
  return {
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    errors: false,
    compile(m: number) {
      const divisor = divisorOf(m);
      return (n: number) => isMultipleOfNumber(n, m, divisor);
    },
    error: {
      message: ({ schemaCode }) => str`must be a multiple of ${schemaCode}`,
      params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
    },
  };
}
