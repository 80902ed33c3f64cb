import type { ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonFault, parseProblem } from './json-fault.js';
import { type LoopbackEngine, type Received, startLoopbackEngine } from './test-support/loopback-engine.js';

/** The faults of `texts`, each after checking that JSON.parse refuses it too. */
function faults(texts: string[]): (string | undefined)[] {
  for (const text of texts) expect(() => JSON.parse(text), JSON.stringify(text)).toThrow(SyntaxError);
  return texts.map(jsonFault);
}

describe('jsonFault', () => {
  it('says what was expected, by line and column, and what was found', () => {
    expect(
      faults([
        '{"a":1 "b":2}',
        '{\n  "id": 7,\n  "name" "x"\n}',
        '{"a":\r\n\r\n  [1, 2,\r   3 x]}',
        '{"a":1]',
        '[1 2]',
        '{"a":}',
        '{a:1}',
        '[,1]',
        'True',
      ]),
    ).toEqual([
      "expected ',' or '}' after an object member at line 1, column 8, found '\"'",
      "expected ':' after a member name at line 3, column 10, found '\"'",
      "expected ',' or ']' after an array element at line 4, column 6, found 'x'",
      "expected ',' or '}' after an object member at line 1, column 7, found ']'",
      "expected ',' or ']' after an array element at line 1, column 4, found '2'",
      "expected a value after ':' at line 1, column 6, found '}'",
      "expected a double-quoted member name or '}' at line 1, column 2, found 'a'",
      "expected a value or ']' at line 1, column 2, found ','",
      "expected a JSON value at line 1, column 1, found 'T'",
    ]);
  });

  it('says where text ends early, and which array or object is left open', () => {
    expect(
      faults(['', ' \n\t', '{"a":[1,2', '{"a":', '{"a"', '[', '-', '[1.', '{"a":1,"b":[{"c":"d"},']),
    ).toEqual([
      'the text is empty',
      'the text is only white space',
      "unexpected end of text, expected ',' or ']' after an array element (the '[' at line 1, column 6 is not closed)",
      "unexpected end of text, expected a value after ':' (the '{' at line 1, column 1 is not closed)",
      "unexpected end of text, expected ':' after a member name (the '{' at line 1, column 1 is not closed)",
      "unexpected end of text, expected a value or ']' (the '[' at line 1, column 1 is not closed)",
      "unexpected end of text, expected a digit after '-'",
      "unexpected end of text, expected a digit after '.' (the '[' at line 1, column 1 is not closed)",
      "unexpected end of text, expected a value after ',' (the '[' at line 1, column 12 is not closed)",
    ]);
  });

  it('finds the text after the value, and the slips of other languages', () => {
    expect(
      faults([
        '{"a":1}\n{"b":2}',
        '[1,2]]',
        '{"a":1,}',
        '[1,]',
        '{/* note */}',
        '[1, // one\n 2]',
        '{"a":1} // done',
        "{'a':1}",
        "['a']",
        '{"n":NaN}',
        '[Infinity]',
        '[-Infinity]',
        '{"a": undefined}',
        'tru',
        '[nul]',
        '+1',
        '.5',
      ]),
    ).toEqual([
      'trailing text after the JSON value at line 2, column 1',
      'trailing text after the JSON value at line 1, column 6',
      "'}' after ',' at line 1, column 8 (JSON allows no trailing comma)",
      "']' after ',' at line 1, column 4 (JSON allows no trailing comma)",
      'comment at line 1, column 2 (JSON has no comments)',
      'comment at line 1, column 5 (JSON has no comments)',
      'comment at line 1, column 9 (JSON has no comments)',
      'single-quoted member name at line 1, column 2 (JSON strings take double quotes)',
      'single-quoted string at line 1, column 2 (JSON strings take double quotes)',
      'NaN at line 1, column 6 (JSON numbers are finite)',
      'Infinity at line 1, column 2 (JSON numbers are finite)',
      '-Infinity at line 1, column 2 (JSON numbers are finite)',
      'undefined at line 1, column 7 (JSON has null, not undefined)',
      "expected 'true' at line 1, column 1",
      "expected 'null' at line 1, column 2",
      "'+' at line 1, column 1 (JSON numbers take no plus sign)",
      "'.' at line 1, column 1 (a JSON number starts with a digit: 0.5, not .5)",
    ]);
  });

  it('judges numbers: leading zeros, a lone minus, a point or an exponent without digits', () => {
    expect(faults(['[01]', '{"a":-007}', '[-]', '-x', '[1.]', '[1.e5]', '[1e]', '[2E+]', '0x1F'])).toEqual([
      'number with a leading zero at line 1, column 2',
      'number with a leading zero at line 1, column 7',
      "expected a digit after '-' at line 1, column 3, found ']'",
      "expected a digit after '-' at line 1, column 2, found 'x'",
      "expected a digit after '.' at line 1, column 4, found ']'",
      "expected a digit after '.' at line 1, column 4, found 'e'",
      "expected a digit in the exponent at line 1, column 4, found ']'",
      "expected a digit in the exponent at line 1, column 5, found ']'",
      'trailing text after the JSON value at line 1, column 2',
    ]);
  });

  it('judges strings: ends, control characters, escapes', () => {
    expect(
      faults([
        '{"token":"abc',
        '["a", "b\\"]',
        '{"a":"x\u0001"}',
        '{"a":"tab\there"}',
        '{"note":"two\nlines"}',
        '"\\x"',
        '"\\u12G4"',
        '"\\u12',
        '"a\\',
        '"\\\u0007"',
        '"\\\u202e"',
      ]),
    ).toEqual([
      'unterminated string starting at line 1, column 10',
      'unterminated string starting at line 1, column 7',
      "unescaped control character '\\u0001' in a string at line 1, column 8",
      "unescaped control character '\\t' in a string at line 1, column 10",
      'unescaped line break in the string starting at line 1, column 9',
      "invalid escape '\\x' in a string at line 1, column 2",
      "invalid escape '\\u' in a string at line 1, column 2 (it takes four hex digits)",
      'unterminated string starting at line 1, column 1',
      'unterminated string starting at line 1, column 1',
      "unescaped control character '\\u0007' in a string at line 1, column 3",
      "invalid escape '\\' before '\\u202e' in a string at line 1, column 2",
    ]);
  });

  it('shows characters that do not show escaped, a byte order mark and a space JSON does not take by name', () => {
    expect(
      faults(['\uFEFF{}', ' \uFEFF{}', '[\ud800]', '{"a":\udc00}', '[\u00a0]', '"a"\u2028', '{"🎉":1 🎉}']),
    ).toEqual([
      'byte order mark at line 1, column 1 (JSON text takes none)',
      "expected a JSON value at line 1, column 2, found '\\ufeff'",
      "expected a value or ']' at line 1, column 2, found '\\ud800'",
      "expected a value after ':' at line 1, column 6, found '\\udc00'",
      "expected a value or ']' at line 1, column 2, found U+00A0 (a space)",
      'trailing text after the JSON value at line 1, column 4',
      // A surrogate pair is one character, in the column and as found.
      "expected ',' or '}' after an object member at line 1, column 8, found '🎉'",
    ]);
    // A lone surrogate inside a string is JSON.parse's to take, and it does.
    expect(jsonFault('"\ud800"')).toBeUndefined();
  });

  it('follows nesting of any depth without recursion', () => {
    const deep = 100_000;
    expect(
      faults(['['.repeat(deep), `${'['.repeat(deep)}${']'.repeat(deep - 1)}}`, '{"a":'.repeat(deep)]),
    ).toEqual([
      `unexpected end of text, expected a value or ']' (the '[' at line 1, column ${deep} is not closed)`,
      `expected ',' or ']' after an array element at line 1, column ${2 * deep}, found '}'`,
      `unexpected end of text, expected a value after ':' (the '{' at line 1, column ${5 * deep - 4} is not closed)`,
    ]);
    // Valid text, however deep, has no fault.
    expect(jsonFault(`${'['.repeat(deep)}${']'.repeat(deep)}`)).toBeUndefined();
  });

  it('finds a fault exactly where JSON.parse does not parse, on texts made at random', () => {
    const pieces = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"',
      '\\',
      '\\u',
      '1',
      '0',
      '-',
      '.',
      'e',
      '+',
      'true',
    ];
    pieces.push('null', 'f', ' ', '\n', '\r', '\t', 'x', '\u0001', '/', '*', '\uFEFF', '\ud800', "'");
    let seed = 0x1234567;
    const random = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    let valid = 0;
    for (let n = 0; n < 30_000; n++) {
      let text = '';
      for (let k = 1 + random(10); k > 0; k--) text += pieces[random(pieces.length)];
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      if (parses) valid++;
      if (parses !== (jsonFault(text) === undefined)) expect({ text, fault: jsonFault(text) }).toBe('agreed');
    }
    expect(valid).toBeGreaterThan(300);
  });

  it('never shows more of the text than the one character found', () => {
    const secret = 'sk-live-0123456789abcdef';
    const texts = [
      secret,
      `{"key":${secret}}`,
      `{"key":"${secret}`,
      `{"key":"${secret}\n"}`,
      `{"key":"${secret}\\q"}`,
      `{${secret}:1}`,
      `["x" ${secret}]`,
    ];
    for (const text of texts) {
      const fault = jsonFault(text)!;
      expect(fault).toMatch(/at line 1, column \d+/);
      expect(fault).not.toMatch(/sk-|live|0123/);
    }
  });
});

describe('parseProblem', () => {
  it('says the fault of JSON text JSON.parse refused, and keeps V8’s words, less the text, for anything else', () => {
    const refused = (text: string) => {
      try {
        JSON.parse(text);
      } catch (e) {
        return e;
      }
    };
    expect(parseProblem(refused('{"a":1,}'), '{"a":1,}')).toBe(
      "'}' after ',' at line 1, column 8 (JSON allows no trailing comma)",
    );
    // Without the text, V8's words (node 22 adds the line and column to them).
    expect(parseProblem(refused('{"pin":1234x}'))).toMatch(
      /^Expected ',' or '}' after property value in JSON at position 11\b/,
    );
    expect(parseProblem(refused('sk-live-0123'))).toBe("Unexpected token 's'");
    // yaml's error is no SyntaxError: its words, never a JSON reading of YAML.
    expect(parseProblem(new Error('Nested mappings are not allowed:\n\n  a: b: c\n'), 'a: b: c')).toBe(
      'Nested mappings are not allowed',
    );
  });
});

describe('a tool call with JSON text that does not parse', () => {
  const tools: ToolDeclaration[] = [
    {
      name: 'Create',
      description: 'Create a thing.',
      method: 'POST',
      path: '/things',
      auth: { kind: 'none' },
      body: { kind: 'mode', schema: { type: 'object', properties: { name: { type: 'string' } } } },
    },
    {
      name: 'List',
      description: 'List things.',
      method: 'GET',
      path: '/things',
      auth: { kind: 'none' },
      params: [
        {
          name: 'sort',
          in: 'query',
          schema: { type: 'string' },
          decode: { kind: 'json', schema: { type: 'array' } },
          description: '',
        },
      ],
    },
  ];
  const received: Received[] = [];
  let loop: LoopbackEngine;

  beforeAll(async () => {
    loop = await startLoopbackEngine('J', tools, received);
  });

  afterAll(() => loop.close());

  it('is refused naming the parameter, the fault, its line and column; nothing is sent', async () => {
    const body = '{\n  "name": "widget",\n  "size": 3\n  "color": "red"\n}';
    expect(await loop.call('Create', { mode: 'execute', request_body: body })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_argument',
        parameter: 'request_body',
        message:
          "Parameter 'request_body' is not valid JSON: expected ',' or '}' after an object member at line 4, column 3, found '\"'.",
      },
    });
    expect(await loop.call('List', { sort: '[{"field":"name"},]' })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_argument',
        parameter: 'sort',
        message:
          "Parameter 'sort' is not valid JSON: ']' after ',' at line 1, column 19 (JSON allows no trailing comma).",
      },
    });
    expect(received).toEqual([]);
  });
});
