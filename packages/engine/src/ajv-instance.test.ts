import { afterEach, expect, it, vi } from 'vitest';
import { compileSchema, sharedAjv } from './ajv-instance.js';

afterEach(() => vi.restoreAllMocks());

// Each host builds its own schema objects, and ajv holds every validator it compiles for the
// life of the process: a runtime that creates and closes hosts must not compile them again.
it('compiles a schema equal to one compiled before, though another object, no more', () => {
  const schema = () => ({
    type: 'object',
    properties: { item_id: { type: 'string', pattern: '^it-' } },
    required: ['item_id'],
  });
  const compile = vi.spyOn(sharedAjv(), 'compile');
  const first = compileSchema(schema());
  for (let i = 0; i < 5; i++) expect(compileSchema(schema())).toBe(first);
  expect(compile).toHaveBeenCalledTimes(1);
  expect(first({ item_id: 'x' })).toBe(false);
  expect(compileSchema({ ...schema(), required: [] })({})).toBe(true);
  expect(compile).toHaveBeenCalledTimes(2);
});
