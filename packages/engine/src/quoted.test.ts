import { describe, expect, it } from 'vitest';
import { cut, escapeLines, escapeUnseen, quoted } from './quoted.js';

describe('quoted', () => {
  it('quotes plain text as it is', () => {
    expect(quoted('GridApi.List*')).toBe("'GridApi.List*'");
    expect(quoted('C:\\tools\\toolhost.json')).toBe("'C:\\tools\\toolhost.json'");
  });

  it('escapes controls, format characters and separators as a JSON string would', () => {
    expect(quoted('a\rb\n\t\u0000\u007f')).toBe("'a\\rb\\n\\t\\u0000\\u007f'");
    expect(quoted('\u202emoc.evil \u2028\u200b\u0085')).toBe("'\\u202emoc.evil \\u2028\\u200b\\u0085'");
    // An astral format character as its two UTF-16 escapes, and half a character alone.
    expect(escapeUnseen('\u{E0041}\ud800')).toBe('\\udb40\\udc41\\ud800');
    // Escaped, each reads back as the character given.
    expect(JSON.parse(`"${escapeUnseen('x\r\u202e\u{E0041}y')}"`)).toBe('x\r\u202e\u{E0041}y');
  });

  it('leaves text in other scripts and emoji alone', () => {
    expect(quoted('Zürich 東京 🎉')).toBe("'Zürich 東京 🎉'");
  });
});

describe('escapeLines', () => {
  it('keeps the line feeds of text of several lines and escapes every other unseen character', () => {
    const text = "error: unknown option '--bogus\u001b[31m'\r\u202e\nUsage: toolhost [options]\n";
    expect(escapeLines(text)).toBe(
      "error: unknown option '--bogus\\u001b[31m'\\r\\u202e\nUsage: toolhost [options]\n",
    );
    // Each line reads back as given, and a line feed alone is left as it is.
    expect(
      escapeLines(text)
        .split('\n')
        .map((l) => JSON.parse(`"${l}"`)),
    ).toEqual(text.split('\n'));
    expect(escapeLines('\n\n')).toBe('\n\n');
    // A CR LF line end shows its CR: it is not a line feed.
    expect(escapeLines('a\r\nb')).toBe('a\\r\nb');
  });
});

describe('cut', () => {
  it('cuts long text with an ellipsis, never between the halves of a character', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdef', 4)).toBe('abcd…');
    // 🎉 is two UTF-16 units: cut after its first, it would show as a lone half.
    expect(cut('abc🎉def', 4)).toBe('abc…');
    expect(cut('abc🎉def', 5)).toBe('abc🎉…');
  });
});
