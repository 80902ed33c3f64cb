import { nestsDeeperThan } from '@toolhost/engine/internal';
import { describe, expect, it } from 'vitest';
import { describeSchemaFailure, MAX_PARAMS_DEPTH, paramsTooDeep } from './request-params.js';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('request params', () => {
  it('measures nesting without recursion, far past where recursion overflows', () => {
    expect(nestsDeeperThan(nested(MAX_PARAMS_DEPTH), MAX_PARAMS_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_PARAMS_DEPTH + 1), MAX_PARAMS_DEPTH)).toBe(true);
    expect(nestsDeeperThan(nested(200_000), MAX_PARAMS_DEPTH)).toBe(true);
    expect(paramsTooDeep('tools/call', { name: 't', arguments: { x: 1 } })).toBeUndefined();
  });

  it("turns the SDK's raw issue list into words, and leaves other errors alone", () => {
    const raw = JSON.stringify([
      {
        expected: 'string',
        code: 'invalid_type',
        path: ['params', 'uri'],
        message: 'Invalid input: expected string, received number',
      },
    ]);
    expect(describeSchemaFailure('resources/read', new Error(raw))).toBe(
      'Invalid params for resources/read: params.uri: expected string, received number.',
    );
    expect(describeSchemaFailure('tools/call', new Error('upstream went away'))).toBeUndefined();
    expect(describeSchemaFailure('tools/call', new RangeError('Maximum call stack size exceeded'))).toMatch(
      /^Invalid params for tools\/call: the params nest too deeply/,
    );
  });
});
