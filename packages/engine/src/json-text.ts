import { ToolError } from '@toolhost/core';

/** A run of 16 digits or more: only such a number can be an integer JSON cannot keep exactly. */
const LONG_DIGITS = /\d{16}/;

/**
 * Parses a parameter given as JSON text, refusing an integer beyond 2^53 - 1: JSON.parse rounds
 * it (12345678901234567891 becomes 12345678901234567000), and the request would carry another
 * number than the caller wrote, unnoticed. Paths and queries refuse such numbers as well.
 */
export function parseJsonText(name: string, text: string): unknown {
  let inexact: string | undefined;
  const reviver = (key: string, value: unknown) => {
    if (
      inexact === undefined &&
      typeof value === 'number' &&
      Number.isInteger(value) &&
      !Number.isSafeInteger(value)
    )
      inexact = key;
    return value;
  };
  let value: unknown;
  try {
    value = LONG_DIGITS.test(text) ? JSON.parse(text, reviver) : JSON.parse(text);
  } catch (e) {
    throw ToolError.invalidArgument(name, `Parameter '${name}' is not valid JSON: ${(e as Error).message}.`);
  }
  if (inexact !== undefined)
    throw ToolError.invalidArgument(
      name,
      `Parameter '${name}' holds an integer${inexact === '' ? '' : ` (at key '${inexact}')`} beyond 9007199254740991, which JSON cannot carry exactly; send such ids as strings.`,
    );
  return value;
}
