import { describe, expect, it } from 'vitest';
import { parseAnswerJson } from './answer-json.js';

describe('parseAnswerJson', () => {
  it('keeps each number a double changes as the string of its literal, wherever it is', () => {
    const text =
      '{"id": 12345678901234567891, "ids": [9007199254740993, -9007199254740993], "deep": {"ratio": 0.1000000000000000055511151231257827},' +
      ' "huge": 1e400, "tiny": -1E-400, "long": 1234567.123456789012, "exp": 12345678901234567891e-5}';
    expect(parseAnswerJson(text)).toEqual({
      id: '12345678901234567891',
      ids: ['9007199254740993', '-9007199254740993'],
      deep: { ratio: '0.1000000000000000055511151231257827' },
      huge: '1e400',
      tiny: '-1E-400',
      long: '1234567.123456789012',
      exp: '12345678901234567891e-5',
    });
    // A top-level number too, and one found by its exponent or after its sign.
    expect(parseAnswerJson(' 12345678901234567891 ')).toBe('12345678901234567891');
    expect(
      parseAnswerJson('[1.5e400,-12345678901234567891,"x 12345678901234567891 \\" 1e400",7e-400]'),
    ).toEqual(['1.5e400', '-12345678901234567891', 'x 12345678901234567891 " 1e400', '7e-400']);
  });

  it("leaves as numbers the fractions a serializer wrote with a double's 17 digits", () => {
    const text = '{"price": 19.989999999999998, "ok": 19.99, "tiny": 1.0000000000000002e-7}';
    expect(parseAnswerJson(text)).toEqual({ price: 19.99, ok: 19.99, tiny: 1.0000000000000002e-7 });
    expect(parseAnswerJson('[0.100000000000000005551]')).toEqual(['0.100000000000000005551']);
  });

  it('scans text that is not JSON in time proportional to its length', () => {
    // A run of exponent letters before a long digit run walked back over the letters at every digit.
    const text = `[${'e'.repeat(100_000)}${'1'.repeat(100_000)}]`;
    expect(() => parseAnswerJson(text)).toThrow(SyntaxError);
  }, 20_000);

  it('reads a literal of 200,000 digits, most of them zeros, in time proportional to its length', () => {
    // Its decimal value was found by a pattern V8 tried from every zero: 40,000 took 2.6 s.
    const zeros = '0'.repeat(200_000);
    const text = `[1.${zeros}1, 1${zeros}1e-200000, 0.${zeros}]`;
    expect(parseAnswerJson(text)).toEqual([`1.${zeros}1`, `1${zeros}1e-200000`, 0]);
  });

  it('refuses, without parsing, an answer nested deeper than it is given, brackets in strings aside', () => {
    const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    expect(() => parseAnswerJson(nested(513), 512)).toThrow(
      new RangeError('The JSON nests more than 512 levels deep.'),
    );
    expect(() => parseAnswerJson(`${nested(513)} not JSON`, 512)).toThrow(RangeError);
    expect(parseAnswerJson(nested(512, '12345678901234567891'), 512)).toEqual(
      JSON.parse(nested(512, '"12345678901234567891"')),
    );
    const quoted = nested(2, JSON.stringify(`\\"${'{['.repeat(600)}\\`));
    expect(parseAnswerJson(quoted, 2)).toEqual(JSON.parse(quoted));
    // Without a bound, as deep as JSON.parse goes.
    let value = parseAnswerJson(nested(100_000, '1e400'));
    let depth = 0;
    for (; Array.isArray(value); depth++) value = value[0];
    expect([depth, value]).toEqual([100_000, '1e400']);
  });

  it('leaves as numbers those a double holds as written, however long their text', () => {
    const text =
      '[9007199254740992, 1234567890123456, 0.30000000000000004, 6.02e23, 1e300, 1.50, -0, 0.0000000000000000000001, 123e-320]';
    expect(parseAnswerJson(text)).toEqual(JSON.parse(text));
    expect((parseAnswerJson(text) as unknown[]).every((n) => typeof n === 'number')).toBe(true);
  });

  it('leaves strings as they are, the digits in them and the quotes before them', () => {
    const text = String.raw`{"a": "12345678901234567891", "b\"": "x\\", "12345678901234567891": 12345678901234567891, "c": "1e400"}`;
    expect(parseAnswerJson(text)).toEqual({
      a: '12345678901234567891',
      'b"': 'x\\',
      '12345678901234567891': '12345678901234567891',
      c: '1e400',
    });
  });

  it('fails on invalid JSON as JSON.parse does, quoting no literal into validity', () => {
    for (const text of [
      '{12345678901234567891: 1}',
      '{"a": 0012345678901234567891}',
      '[12345678901234567891,]',
      '{"a": 12345678901234567891',
    ]) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      expect(() => parseAnswerJson(text)).toThrow(SyntaxError);
    }
  });

  it('parses an answer without such a number as JSON.parse does', () => {
    const text = JSON.stringify({ items: [{ id: 42, price: 19.99, at: 1_700_000_000_000, name: 'n' }] });
    expect(parseAnswerJson(text)).toEqual(JSON.parse(text));
  });
});
