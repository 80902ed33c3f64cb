import { ToolError } from '@toolhost/core';
import { scanJson } from './json-scan.js';

/**
 * A request body's numbers go out as they were given, or not at all. JSON.parse reads a number
 * past a double's range (`1e400`) as Infinity, which JSON.stringify then writes as `null`, and
 * an integer of more than 15 or so digits as the nearest double: `12345678901234567890123`
 * went out as `1.2345678901234568e+22`, an id of another object or a value nobody gave, with
 * the call answered as a success.
 */

/** A JSON number literal, whole (RFC 8259). */
export const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The decimal a number's text denotes, as `<sign><digits>e<exponent>` without zeros at either end. */
export function decimalValue(text: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = DECIMAL.exec(text) ?? [];
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  // Not /0+$/, which V8 tries from every zero: a literal of 40,000 zeros and a 1 took 2.6 s.
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  const significant = digits.slice(0, end);
  if (significant === '') return '0';
  const exp = Number(exponent) - fraction.length + (digits.length - significant.length);
  return `${sign}${significant}e${exp}`;
}

/** Why no double stands for a literal at all, and what it would go out as instead. */
export interface OutOfRange {
  reason: string;
  sentAs: string;
}

/**
 * Whether a literal is past a double's range (it reads as Infinity, which JSON writes as null)
 * or nearer to zero than its least (`-1e-400` reads as -0, sent as 0, a number nobody gave):
 * no double stands for it, whether it came as a number or as a string standing for one.
 */
export function outOfRange(literal: string): OutOfRange | undefined {
  const n = Number(literal);
  if (!Number.isFinite(n))
    return { reason: 'it is past the largest number JSON carries here (about 1.8e308)', sentAs: 'null' };
  if (n !== 0 || decimalValue(literal) === '0') return undefined;
  return {
    reason: 'it is nearer to zero than the smallest number JSON carries here (about 5e-324)',
    sentAs: '0',
  };
}

/**
 * Whether a JSON number literal goes out as the number it reads: the body is sent as
 * JSON.stringify writes it, String(n). Within a double's range, below 2^53 every integer is a
 * double and a decimal fraction goes to its nearest double, as any JSON reader takes it; from
 * 2^53 up, where a double no longer holds every integer, String(n) must denote the very decimal
 * written (`6.02e23` goes as `6.02e+23`; `12345678901234567890.0` would go as `12345678901234567000`).
 */
function parsesExactly(literal: string): boolean {
  if (outOfRange(literal)) return false;
  const n = Number(literal);
  return Math.abs(n) < 2 ** 53 || decimalValue(literal) === decimalValue(String(n));
}

/**
 * The first number literal of valid JSON `text` that JSON.parse changes, strings skipped. The
 * scan hands over each one parsesExactly may refuse: a literal of at most 15 digits, its
 * exponent of two at most, comes back from a double as written.
 */
function firstInexactLiteral(text: string): string | undefined {
  let found: string | undefined;
  scanJson(text, Number.POSITIVE_INFINITY, (literal) => {
    if (!parsesExactly(literal)) found = literal;
    return found !== undefined;
  });
  return found;
}

/**
 * The path (`request_body.items[0].id`) and value of the first number in `value` that `bad`
 * picks out, in document order, found without recursion.
 */
function numberWhere(
  value: unknown,
  root: string,
  bad: (n: number) => boolean,
): { at: string; n: number } | undefined {
  const pending: [unknown, string][] = [[value, root]];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'number' && bad(item)) return { at, n: item };
    if (item === null || typeof item !== 'object') continue;
    // Pushed one by one, last first so the first pops first: spreading 200,000 children into
    // one push overflowed the stack, failing the call as an internal error.
    const keys = Object.keys(item);
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k]!;
      const child = (item as Record<string, unknown>)[key];
      pending.push([child, Array.isArray(item) ? `${at}[${key}]` : `${at}.${key}`]);
    }
  }
  return undefined;
}

/**
 * Refuses a body parsed from JSON `text` that holds a number its parse changed, naming where
 * it is and what it would have become: only such numbers, since the text says what was meant.
 */
export function refuseInexactText(param: string, text: string, parsed: unknown): void {
  const literal = firstInexactLiteral(text);
  if (literal === undefined) return;
  const read = Number(literal);
  // Found by its value, but an underflow's 0 is not told apart from a 0 written: named by the parameter alone.
  const at = read === 0 ? param : (numberWhere(parsed, param, (n) => Object.is(n, read))?.at ?? param);
  const range = outOfRange(literal);
  const became = range
    ? `${range.reason} and would go out as ${range.sentAs}`
    : `it would go out as ${read}; from 2^53 (9007199254740992) up a number goes out as its nearest double (pass larger ids as strings)`;
  throw ToolError.invalidArgument(
    at,
    `Parameter '${param}' holds the number ${literal} at ${at}, which cannot be sent exactly: ${became}.`,
  );
}

/** How many significant digits the shortest decimal of `n` has (`12345678901234567000`: 17). */
function significantDigits(n: number): number {
  return decimalValue(String(Math.abs(n))).split('e')[0]!.length;
}

/**
 * Refuses a value given already parsed that holds a number that cannot go out as it came: not
 * finite, or from 2^53 up with more significant digits than 15, the most a double keeps of any
 * decimal: `12345678901234567890` parsed is `12345678901234567000`, most likely a rounded id.
 * The text it came from is unknown, so `6.02e23` or `1e21` goes as JSON writes it.
 */
export function refuseInexactValues(param: string, value: unknown): void {
  const bad = (n: number) => !Number.isFinite(n) || (Math.abs(n) >= 2 ** 53 && significantDigits(n) > 15);
  const found = numberWhere(value, param, bad);
  if (found === undefined) return;
  throw ToolError.invalidArgument(
    found.at,
    `Parameter '${param}' holds the number ${found.n} at ${found.at}, which cannot be sent exactly: numbers must be finite, and from 2^53 (9007199254740992) up have at most 15 significant digits (pass larger ids as strings).`,
  );
}
