import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { exactMultipleOf } from './multiple-of.js';

// ajv's compiler (some sixty modules) is required on the first schema compiled, not when the
// engine is imported: start-up checks declarations with validators generated at build time,
// and a tool's argument validator is compiled at its first call, so a host answering its
// first tools/list never loads it. Both packages are CommonJS, hence require().
const require = createRequire(import.meta.url);

const INT32 = 2 ** 31;

function createAjv(): Ajv {
  const { Ajv, _, str } = require('ajv') as typeof import('ajv');
  // ajv-formats is CommonJS with `exports.default`.
  const formats = require('ajv-formats') as { default?: unknown };
  const addFormats = (formats.default ?? formats) as (ajv: Ajv) => Ajv;
  const ajv = new Ajv({
    allErrors: true,
    // Vendor schemas carry OpenAPI keywords (`nullable`, `readOnly`, `example`, `x-*`) and
    // formats such as `int64`; strict mode would reject them.
    strict: false,
    logger: false,
    coerceTypes: false,
    useDefaults: false,
  });
  addFormats(ajv);
  // Its own divides doubles (0.07 / 0.01 is 7.000000000000001): see multiple-of.ts.
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword(exactMultipleOf({ _, str }));
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  return ajv;
}

let shared: Ajv | undefined;

/** One Ajv for the process: compiled validators are cached by schema identity. */
export function sharedAjv(): Ajv {
  shared ??= createAjv();
  return shared;
}

const compiled = new WeakMap<object, ValidateFunction>();
/**
 * Validators by the schema's text. Ajv keeps every validator it compiles for the life of its
 * instance (its code scope holds them, whatever removeSchema drops), and each host builds its
 * own schema objects: keyed by identity alone, a runtime that creates and closes hosts grew
 * by every validator of every host. By text, the same tools compile once per process.
 */
const byText = new Map<string, ValidateFunction>();

function textOf(schema: object): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    // Not JSON (a cycle): compiled for this object alone, as before.
    return undefined;
  }
}

/** Compiles a schema once and reuses the validator for every later call. */
export function compileSchema(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate) return validate;
  const text = textOf(schema);
  validate = text === undefined ? undefined : byText.get(text);
  if (!validate) {
    validate = sharedAjv().compile(schema);
    if (text !== undefined) byText.set(text, validate);
  }
  compiled.set(schema, validate);
  return validate;
}

export type { ErrorObject, ValidateFunction };
