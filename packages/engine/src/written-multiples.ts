import type { JsonSchema } from '@toolhost/core';
import type { ErrorObject } from './ajv-instance.js';
import { decimalValue } from './exact-numbers.js';
import { pointerOf } from './json-pointer.js';
import { placedLiterals, scanJson } from './json-scan.js';
import { multipleOfProblem } from './number-limits.js';
import { SchemaPlaces } from './schema-places.js';

/**
 * request_body text is validated as JSON.parse reads it, each number as its nearest double,
 * whose decimal `multipleOf` is judged on (multiple-of.ts). Below 2^53 a literal with more
 * digits than a double keeps (`0.07000000000000000001`) reads as another number (0.07), a
 * multiple where the literal written is none: the text says what was meant, so there the
 * literal is judged too, as a string standing for a number is.
 */

const mentions = new WeakMap<object, boolean>();

/** Whether `multipleOf` is written anywhere in the schema (as a key, mostly): most schemas have none. */
function mentionsMultipleOf(schema: JsonSchema): boolean {
  let found = mentions.get(schema);
  if (found === undefined) {
    try {
      found = JSON.stringify(schema).includes('"multipleOf"');
    } catch {
      // Not JSON (a cycle): looked for in the text itself.
      found = true;
    }
    mentions.set(schema, found);
  }
  return found;
}

/** A finite literal below 2^53 (larger ones are refused elsewhere when inexact) that its double rounds. */
function rounded(literal: string): boolean {
  if (literal.length < 16) return false;
  const n = Number(literal);
  return n !== 0 && Math.abs(n) < 2 ** 53 && decimalValue(literal) !== decimalValue(String(n));
}

/** Errors where `value`, parsed from `text`, holds a rounded literal no multiple its schema wants. */
export function writtenMultiples(schema: JsonSchema, text: string, value: unknown): ErrorObject[] {
  if (!mentionsMultipleOf(schema)) return [];
  // Most texts hold no such literal: found, or not, in the quick scan before any is placed.
  let any = false;
  scanJson(text, Number.POSITIVE_INFINITY, (literal) => {
    any = rounded(literal);
    return any;
  });
  if (!any) return [];
  const errors: ErrorObject[] = [];
  let places: SchemaPlaces | undefined;
  for (const { keys, literal } of placedLiterals(text, rounded)) {
    places ??= new SchemaPlaces(schema, value);
    // As for number strings: only where every schema gathered binds the place (none a branch).
    const { schemas, branched } = places.at(keys);
    const problem = schemas && !branched && multipleOfProblem(pointerOf(keys), literal, schemas);
    if (problem) errors.push(problem);
  }
  return errors;
}
