import { ToolError } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { checkWellFormed, fillPath } from './encode-path.js';

const fill = (value: unknown) =>
  fillPath('/v3/things/{id}/sub', new Map([['id', { param: 'thing_id', value }]]));

describe('fillPath', () => {
  it.each([
    ['plain', 'abc', '/v3/things/abc/sub'],
    ['slash', 'a/b', '/v3/things/a%2Fb/sub'],
    ['traversal inside a value', '../admin', '/v3/things/..%2Fadmin/sub'],
    ['query and fragment', 'x?y#z', '/v3/things/x%3Fy%23z/sub'],
    ['already encoded', '%2F', '/v3/things/%252F/sub'],
    ['control characters', 'a\r\nb', '/v3/things/a%0D%0Ab/sub'],
    ['number', 42, '/v3/things/42/sub'],
    ['largest safe integer', 9007199254740991, '/v3/things/9007199254740991/sub'],
    ['negative', -7, '/v3/things/-7/sub'],
  ])('encodes %s so the path cannot change', (_label, value, expected) => {
    expect(fill(value)).toBe(expected);
  });

  it.each(['', '.', '..'])('refuses %j, which URL parsers would resolve away', (value) => {
    let error: unknown;
    try {
      fill(value);
    } catch (e) {
      error = e;
    }
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as ToolError).info).toMatchObject({ code: 'invalid_argument', parameter: 'thing_id' });
  });
});

describe('fillPath with numbers JavaScript cannot write exactly', () => {
  it.each([1e21, -1e21, 2 ** 53, 1.5e300, Number.POSITIVE_INFINITY, Number.NaN])(
    'refuses %s, naming the parameter, rather than send exponent form or a rounded value',
    (value) => {
      let error: unknown;
      try {
        fill(value);
      } catch (e) {
        error = e;
      }
      expect(ToolError.isInstance(error)).toBe(true);
      expect((error as ToolError).info).toMatchObject({ code: 'invalid_argument', parameter: 'thing_id' });
      expect((error as ToolError).message).toMatch(/thing_id/);
    },
  );
});

describe('checkWellFormed', () => {
  it('refuses a lone surrogate, naming the parameter and where, and takes pairs', () => {
    expect(() => checkWellFormed('item_id', 'a\ud800b')).toThrow(
      "Parameter 'item_id' holds a lone surrogate (\\uD800 at position 1); expected well-formed Unicode text.",
    );
    expect(() => checkWellFormed('q', '\udc00')).toThrow(/lone surrogate \(\\uDC00 at position 0\)/);
    expect(() => checkWellFormed('q', 'emoji 😀 ok')).not.toThrow();
  });
});
