import type { JsonSchema } from '@toolhost/core';
import { compileSchema } from './ajv-instance.js';
import { describeValidationErrors, type ValidationProblem } from './describe-validation-errors.js';

/** Validates a value (e.g. a plugin's configured settings) against a schema; problems name where, under `root`. */
export function checkAgainstSchema(schema: JsonSchema, value: unknown, root = ''): ValidationProblem[] {
  const validate = compileSchema(schema);
  return validate(value) ? [] : describeValidationErrors(validate.errors ?? [], root);
}
