import { createRequire } from 'node:module';
import { TOOL_SET_VOCABULARY } from '@toolhost/core';
import { expect, it } from 'vitest';
import { compileSchema, type ValidateFunction } from './ajv-instance.js';

// The build compiles the vocabulary into standalone code so that the host's start-up does not
// (about 60 ms, and ajv's compiler). It must report what the run-time compilation reports.
const generated = createRequire(import.meta.url)(
  '../dist/tool-set-vocabulary.generated.cjs',
) as ValidateFunction;

it('the build-time vocabulary validator reports what compiling it now reports', () => {
  const compiled = compileSchema(TOOL_SET_VOCABULARY);
  const broken = {
    contractVersion: '2.0',
    toolSet: 'RowsApi',
    plugin: { name: 'rows-plugin', version: '1.0.0' },
    servers: { default: 'https://rows.test' },
    tools: [{ name: 'GetRow', method: 'FETCH', path: 3, auth: { kind: 'none' }, legacy: true }],
  };
  expect(generated(broken)).toBe(false);
  expect(compiled(broken)).toBe(false);
  expect(generated.errors).toEqual(compiled.errors);
  const fine = { ...broken, tools: [] };
  expect(generated(fine)).toBe(compiled(fine));
});
