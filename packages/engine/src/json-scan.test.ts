import { describe, expect, it } from 'vitest';
import { placedLiterals, scanJson } from './json-scan.js';

function scan(text: string, maxDepth = Number.POSITIVE_INFINITY) {
  const seen: [literal: string, at: number][] = [];
  const within = scanJson(text, maxDepth, (literal, at) => {
    seen.push([literal, at]);
    return false;
  });
  return { within, seen };
}

const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('scanJson', () => {
  it('measures how deep arrays and objects nest, what a closing bracket ends given back', () => {
    expect(scan(nested(5), 5).within).toBe(true);
    expect(scan(nested(6), 5).within).toBe(false);
    expect(scan(`{"a":${nested(4)},"b":[${nested(4)}]}`, 5).within).toBe(false);
    expect(scan(`{"a":${nested(4)},"b":${nested(4)},"c":${nested(4)}}`, 5).within).toBe(true);
    // Found as soon as it is passed, whatever follows.
    expect(scan(`${nested(6)}]]]} not JSON "`, 5).within).toBe(false);
  });

  it('counts no bracket inside a string, whatever escapes come before its closing quote', () => {
    // The string holds \"[[[…\ : its quote is escaped, and so is the backslash before its end.
    expect(scan(nested(5, JSON.stringify(`\\"${'['.repeat(50)}\\`)), 5).within).toBe(true);
    expect(scan(String.raw`["\"[[[[[[[[[", "\\\"{{{{{{{{{{"]`, 1).within).toBe(true);
    // An escaped backslash, then the closing quote: the brackets after it count.
    expect(scan(String.raw`["\\", [[[[1]]]]]`, 4).within).toBe(false);
    expect(scan(String.raw`["\\\\\\", [[[1]]]]`, 4).within).toBe(true);
    // Nothing after a string left open is JSON: its brackets are not read.
    expect(scan(`["open ${nested(10)}`, 2).within).toBe(true);
  });

  it('hands over each literal a double may change, where it starts, strings skipped', () => {
    const text =
      '{"id":12345678901234567891,"s":"12345678901234567891 1e400 \\" 1e400","n":[-1e400,1.5,1234567890123456,' +
      '123456789012345,1E+100,1e99,1e-99,0.1000000000000000055511,-0.00000000000001,2.5e-1000],"t":1700000000000}';
    const at = (literal: string) => text.indexOf(`${literal},`);
    expect(scan(text).seen).toEqual([
      ['12345678901234567891', at('12345678901234567891')],
      ['-1e400', at('-1e400')],
      ['1234567890123456', at('1234567890123456')],
      ['1E+100', at('1E+100')],
      ['0.1000000000000000055511', at('0.1000000000000000055511')],
      ['-0.00000000000001', at('-0.00000000000001')],
      ['2.5e-1000', text.indexOf('2.5e-1000')],
    ]);
    expect(scan(' 12345678901234567891 ').seen).toEqual([['12345678901234567891', 1]]);
  });

  it('stops where visit answers true', () => {
    const seen: string[] = [];
    scanJson('[1e400, 2e400, 3e400]', Number.POSITIVE_INFINITY, (literal) => {
      seen.push(literal);
      return literal === '2e400';
    });
    expect(seen).toEqual(['1e400', '2e400']);
  });

  it('reads text that is not JSON without failing, each literal as far as JSON reads one', () => {
    for (const text of ['-', '--', '1.', '.5', '1e', '1e+', '"', '\\', ']]]]', '}{', '1.2.3', 'tru', ''])
      expect(scan(text)).toEqual({ within: true, seen: [] });
    // `1.` is no literal, and `e400` after one no exponent.
    const text = '[--12345678901234567891, 1.e400, 1e400e400, truee1e400]';
    expect(scan(text).seen).toEqual([
      ['-12345678901234567891', 2],
      ['1e400', text.indexOf('1e400e')],
      ['1e400', text.indexOf('e1e400') + 1],
    ]);
  });

  it('reads huge text in time proportional to its length, JSON or not', () => {
    const n = 200_000;
    // Any of these took minutes if some part of it were read again for each character.
    const texts = [
      '['.repeat(n),
      '-'.repeat(n),
      `"${'\\"'.repeat(n)}`,
      `[${'"\\\\",'.repeat(n)}]`,
      `${'e'.repeat(n)}${'1'.repeat(n)}`,
      `[${'1.'.repeat(n)}]`,
      `[${'1e'.repeat(n)}]`,
      `[1${'0'.repeat(n)}, -0.${'0'.repeat(n)}1]`,
    ];
    for (const text of texts) expect(scan(text).within).toBe(true);
    expect(scan('['.repeat(n), 512).within).toBe(false);
  });
});

describe('placedLiterals', () => {
  const all = () => true;

  it('names each literal by the keys JSON.parse puts it under, escaped keys read as keys', () => {
    const text = String.raw`{"a":[1,{},[],"x",{"b\"/~":-2.5e3,"c":[true,null,{"d":3}]}],"":4,"e":"5, 6"}`;
    expect(placedLiterals(text, all)).toEqual([
      { keys: ['a', '0'], literal: '1' },
      { keys: ['a', '4', 'b"/~'], literal: '-2.5e3' },
      { keys: ['a', '4', 'c', '2', 'd'], literal: '3' },
      { keys: [''], literal: '4' },
    ]);
    expect(placedLiterals('7', all)).toEqual([{ keys: [], literal: '7' }]);
  });

  it('keeps those it is asked for, and of a member written twice only the last', () => {
    const wanted = (literal: string) => literal.length > 2;
    expect(placedLiterals('{"a":100,"b":[200,3],"a":{"a":400},"b":[5]}', wanted)).toEqual([
      { keys: ['a', 'a'], literal: '400' },
    ]);
    expect(placedLiterals('{"a":{"b":[100]},"a":{"b":1},"c":{"d":200},"cd":3}', wanted)).toEqual([
      { keys: ['c', 'd'], literal: '200' },
    ]);
  });

  it('places many literals among many keys in time linear in the text', () => {
    // Each key read forgot what was under it by a look at everything found: 32,000 items such as
    // these, 1.1 MiB of request_body, held the event loop for over a minute.
    const items = Array.from({ length: 60_000 }, () => '{"v":0.07000000000000000001,"n":"x"}');
    const started = performance.now();
    const found = placedLiterals(`{"items":[${items.join(',')}]}`, (literal) => literal.length > 4);
    expect(found).toHaveLength(60_000);
    expect(found[59_999]).toEqual({ keys: ['items', '59999', 'v'], literal: '0.07000000000000000001' });
    // Linear takes a fraction of a second; quadratic, minutes.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
