import { decimalValue } from './exact-numbers.js';

/**
 * A JSON number literal's exact value, for comparisons a double cannot make: past 2^53, or with
 * more digits than a double keeps, two literals with one nearest double are still two numbers.
 * Every operation is linear in the digits, whatever their count.
 */
export interface Decimal {
  negative: boolean;
  /** The significant digits, no zero at either end; empty for zero. */
  digits: string;
  /** The value is digits × 10^exponent. */
  exponent: number;
}

/** The value of a JSON number literal (or of String(n) for a finite double). */
export function decimalOf(literal: string): Decimal {
  const value = decimalValue(literal);
  if (value === '0') return { negative: false, digits: '', exponent: 0 };
  const at = value.indexOf('e');
  const negative = value.startsWith('-');
  return { negative, digits: value.slice(negative ? 1 : 0, at), exponent: Number(value.slice(at + 1)) };
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareDecimals(a: Decimal, b: Decimal): number {
  if (a.digits === '' || b.digits === '' || a.negative !== b.negative) {
    const sign = (d: Decimal) => (d.digits === '' ? 0 : d.negative ? -1 : 1);
    return Math.sign(sign(a) - sign(b));
  }
  // Both of one sign: the magnitudes first by the place of their first digit, then digit by digit.
  const places = a.exponent + a.digits.length - (b.exponent + b.digits.length);
  let order = Math.sign(places);
  if (order === 0 && a.digits !== b.digits) order = a.digits < b.digits ? -1 : 1;
  return a.negative ? -order : order;
}

export function isIntegral(a: Decimal): boolean {
  return a.digits === '' || a.exponent >= 0;
}

/**
 * Whether `a` is an integer multiple of `b` (b not zero). With a = p × 10^i and b = q × 10^j,
 * p and q free of trailing zeros: where i < j, p would need j - i trailing zeros, so only zero
 * is; otherwise q must divide p × 10^(i-j). For finite values, i - j stays within some 700.
 */
export function isMultipleOf(a: Decimal, b: Decimal): boolean {
  if (a.digits === '') return true;
  if (a.exponent < b.exponent) return false;
  const q = BigInt(b.digits);
  return ((BigInt(a.digits) % q) * (10n ** BigInt(a.exponent - b.exponent) % q)) % q === 0n;
}
