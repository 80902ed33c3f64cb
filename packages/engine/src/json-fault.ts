import { escapeUnseen, quoted } from './quoted.js';

/**
 * Why JSON text did not parse, said by what was expected and where (line and column), for a
 * caller to fix it: V8 says `position 1834` of a text on many lines, or only `Unexpected token`,
 * and quotes the text around the fault, a secret perhaps. Read again only once JSON.parse has
 * failed, in one pass, with no recursion (100,000 nested `[` are a list of where each opened,
 * not a stack of calls); of the text, a message shows at most the one character found, escaped.
 */

/** What comes next: a value (at the top, in an array or after a name), a member name, or a separator. */
type Want = 'top' | 'firstElement' | 'element' | 'member' | 'firstName' | 'name' | 'colon' | 'next';

/** A step's outcome: what comes next, or the fault found. */
type Step = Want | { fault: string };

const EXPECTED: Record<Exclude<Want, 'next'>, string> = {
  top: 'a JSON value',
  firstElement: "a value or ']'",
  element: "a value after ','",
  member: "a value after ':'",
  firstName: "a double-quoted member name or '}'",
  name: "a double-quoted member name after ','",
  colon: "':' after a member name",
};

const LITERALS = ['true', 'false', 'null'];
const WORDS: Record<string, string> = {
  NaN: 'JSON numbers are finite',
  Infinity: 'JSON numbers are finite',
  undefined: 'JSON has null, not undefined',
};
const ESCAPED = new Set('"\\/bfnrt');

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** The fault in JSON `text`, or undefined where there is none (JSON.parse failed for another reason). */
export function jsonFault(text: string): string | undefined {
  return new FaultScanner(text).scan();
}

/**
 * Why JSON text (`text`, where given) did not parse, for a message: by `jsonFault` where the
 * error is JSON.parse's; else V8's or yaml's words, less the text they quote around the fault
 * (`"sk-live-…" is not valid JSON`, the lines with a caret under them), escaped.
 */
export function parseProblem(e: unknown, text?: string): string {
  const fault = text !== undefined && e instanceof SyntaxError ? jsonFault(text) : undefined;
  if (fault !== undefined) return fault;
  const where = (e as Error).message.replace(/:\n.*|(^|, )(\.{3})?".*"(\.{3})? is not valid JSON$/s, '');
  return escapeUnseen(where) || 'not JSON';
}

class FaultScanner {
  private i = 0;
  private line = 1;
  /** The open arrays and objects: where each starts, and on which line. */
  private readonly opens: number[] = [];
  private readonly openLines: number[] = [];

  constructor(private readonly text: string) {}

  scan(): string | undefined {
    let want: Want = 'top';
    for (;;) {
      this.skipSpace();
      if (this.i >= this.text.length) return this.ended(want);
      let step: Step;
      if (want === 'next') step = this.afterValue();
      else if (want === 'colon') step = this.colon();
      else if (want === 'firstName' || want === 'name') step = this.name(want);
      else step = this.value(want);
      if (typeof step !== 'string') return step.fault;
      want = step;
    }
  }

  /** JSON's white space (no other), counting lines: `\n`, `\r\n` and `\r` end one each. */
  private skipSpace(): void {
    const { text } = this;
    for (; this.i < text.length; this.i++) {
      const c = text.charCodeAt(this.i);
      if (c === 0x0a || (c === 0x0d && text.charCodeAt(this.i + 1) !== 0x0a)) this.line++;
      else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return;
    }
  }

  private ended(want: Want): string | undefined {
    if (want === 'next' && this.opens.length === 0) return undefined;
    if (want === 'top') return this.text.length === 0 ? 'the text is empty' : 'the text is only white space';
    return this.expected(this.i, want === 'next' ? this.separator() : EXPECTED[want]);
  }

  private value(want: Want): Step {
    const { text, i } = this;
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      this.opens.push(i);
      this.openLines.push(this.line);
      this.i++;
      return c === 0x7b ? 'firstName' : 'firstElement';
    }
    if (c === 0x5d && want === 'firstElement') return this.close();
    if (c === 0x22) return this.string() ?? 'next';
    if (c === 0x2d || isDigit(c)) return this.number() ?? 'next';
    const literal = LITERALS.find((l) => text.startsWith(l, i));
    if (literal !== undefined) {
      this.i += literal.length;
      return 'next';
    }
    return { fault: this.notAValue(want) };
  }

  /** A value's place holds something no value starts with: what it is, where it is a known slip. */
  private notAValue(want: Want): string {
    const { text, i } = this;
    const c = text[i]!;
    if (c === ']' && want === 'element')
      return `']' after ',' at ${this.where(i)} (JSON allows no trailing comma)`;
    const word = Object.keys(WORDS).find(
      (w) => text.startsWith(w, i) && !/\w/.test(text[i + w.length] ?? ''),
    );
    if (word !== undefined) return `${word} at ${this.where(i)} (${WORDS[word]})`;
    const literal = LITERALS.find((l) => l[0] === c);
    if (literal !== undefined) return `expected '${literal}' at ${this.where(i)}`;
    if (c === "'") return `single-quoted string at ${this.where(i)} (JSON strings take double quotes)`;
    if (c === '+') return `'+' at ${this.where(i)} (JSON numbers take no plus sign)`;
    if (c === '.') return `'.' at ${this.where(i)} (a JSON number starts with a digit: 0.5, not .5)`;
    if (i === 0 && c === '\uFEFF') return 'byte order mark at line 1, column 1 (JSON text takes none)';
    return this.expected(i, EXPECTED[want as Exclude<Want, 'next'>]);
  }

  private name(want: 'firstName' | 'name'): Step {
    const c = this.text.charCodeAt(this.i);
    if (c === 0x22) return this.string() ?? 'colon';
    if (c === 0x7d && want === 'firstName') return this.close();
    if (c === 0x7d)
      return { fault: `'}' after ',' at ${this.where(this.i)} (JSON allows no trailing comma)` };
    if (c === 0x27) {
      return {
        fault: `single-quoted member name at ${this.where(this.i)} (JSON strings take double quotes)`,
      };
    }
    return { fault: this.expected(this.i, EXPECTED[want]) };
  }

  private colon(): Step {
    if (this.text.charCodeAt(this.i) !== 0x3a) return { fault: this.expected(this.i, EXPECTED.colon) };
    this.i++;
    return 'member';
  }

  /** After a value: its array's or object's separator or end, or, at the top, the end of the text. */
  private afterValue(): Step {
    const { text, i } = this;
    if (this.opens.length === 0) {
      return { fault: this.comment(i) ?? `trailing text after the JSON value at ${this.where(i)}` };
    }
    const inObject = text.charCodeAt(this.opens[this.opens.length - 1]!) === 0x7b;
    const c = text.charCodeAt(i);
    if (c === 0x2c) {
      this.i++;
      return inObject ? 'name' : 'element';
    }
    if (c === (inObject ? 0x7d : 0x5d)) return this.close();
    return { fault: this.expected(i, this.separator()) };
  }

  private separator(): string {
    const inObject = this.text.charCodeAt(this.opens[this.opens.length - 1]!) === 0x7b;
    return inObject ? "',' or '}' after an object member" : "',' or ']' after an array element";
  }

  private close(): Want {
    this.opens.pop();
    this.openLines.pop();
    this.i++;
    return 'next';
  }

  /** A string from its opening quote: undefined where it is whole, else its fault. */
  private string(): { fault: string } | undefined {
    const { text } = this;
    const start = this.i;
    for (let i = start + 1; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return undefined;
      }
      if (c === 0x0a || c === 0x0d)
        return { fault: `unescaped line break in the string starting at ${this.where(start)}` };
      if (c < 0x20)
        return { fault: `unescaped control character ${quoted(text[i]!)} in a string at ${this.where(i)}` };
      if (c !== 0x5c) continue;
      const next = text.charCodeAt(i + 1);
      // The text's end, or a control character, which is its own fault, found next round.
      if (!(next >= 0x20)) continue;
      if (next === 0x75) {
        if (!/^[0-9A-Fa-f]*$/.test(text.slice(i + 2, i + 6))) {
          return { fault: `invalid escape '\\u' in a string at ${this.where(i)} (it takes four hex digits)` };
        }
        i += 5;
      } else if (ESCAPED.has(text[i + 1]!)) i++;
      else return { fault: `invalid escape ${this.escapeShown(i + 1)} in a string at ${this.where(i)}` };
    }
    return { fault: `unterminated string starting at ${this.where(start)}` };
  }

  /** The backslash and the character after it, as written; one that does not show, by its escape. */
  private escapeShown(i: number): string {
    const c = this.characterAt(i);
    return escapeUnseen(c) === c ? quoted(`\\${c}`) : `'\\' before ${quoted(c)}`;
  }

  /** A number from its first character: undefined where it is whole, else its fault. */
  private number(): { fault: string } | undefined {
    const { text } = this;
    let i = this.i;
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (text.startsWith('Infinity', i))
        return { fault: `-Infinity at ${this.where(i - 1)} (${WORDS.Infinity})` };
      if (!isDigit(text.charCodeAt(i))) return { fault: this.expected(i, "a digit after '-'") };
    }
    if (text.charCodeAt(i) === 0x30 && isDigit(text.charCodeAt(i + 1))) {
      return { fault: `number with a leading zero at ${this.where(i)}` };
    }
    while (isDigit(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(text.charCodeAt(i))) return { fault: this.expected(i, "a digit after '.'") };
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      if (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d) i++;
      if (!isDigit(text.charCodeAt(i))) return { fault: this.expected(i, 'a digit in the exponent') };
      while (isDigit(text.charCodeAt(i))) i++;
    }
    this.i = i;
    return undefined;
  }

  /**
   * `expected <what>` at `i`, naming the character found there; at the end of the text, that
   * it ended, and which array or object is still open.
   */
  private expected(i: number, what: string): string {
    const { text, opens } = this;
    if (i >= text.length) {
      const open = opens.length - 1;
      const note =
        open < 0
          ? ''
          : ` (the '${text[opens[open]!]}' at ${this.where(opens[open]!, this.openLines[open]!)} is not closed)`;
      return `unexpected end of text, expected ${what}${note}`;
    }
    return this.comment(i) ?? `expected ${what} at ${this.where(i)}, found ${this.shown(i)}`;
  }

  private comment(i: number): string | undefined {
    const { text } = this;
    const opens = text[i] === '/' && (text[i + 1] === '/' || text[i + 1] === '*');
    return opens ? `comment at ${this.where(i)} (JSON has no comments)` : undefined;
  }

  /** The character at `i`, a whole one where a surrogate pair starts there. */
  private characterAt(i: number): string {
    return String.fromCodePoint(this.text.codePointAt(i)!);
  }

  /** The character at `i` as a message shows it: escaped, or a space by its code point. */
  private shown(i: number): string {
    const c = this.characterAt(i);
    if (/\p{Zs}/u.test(c))
      return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} (a space)`;
    return quoted(c);
  }

  /** `line L, column C` of index `i` on `line`; columns count characters (a surrogate pair as one). */
  private where(i: number, line = this.line): string {
    const { text } = this;
    let start = i;
    while (start > 0 && text.charCodeAt(start - 1) !== 0x0a && text.charCodeAt(start - 1) !== 0x0d) start--;
    let column = 1;
    for (let k = start; k < i; k++) {
      const low = text.charCodeAt(k) >= 0xdc00 && text.charCodeAt(k) <= 0xdfff;
      const afterHigh = k > start && text.charCodeAt(k - 1) >= 0xd800 && text.charCodeAt(k - 1) <= 0xdbff;
      if (!(low && afterHigh)) column++;
    }
    return `line ${line}, column ${column}`;
  }
}
