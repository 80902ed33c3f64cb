/**
 * The one reading of JSON text that JSON.parse does not do: how deep its arrays and objects
 * nest, and which of its number literals a double may change. An answer was read twice before
 * its parse (its nesting, then its numbers); both are found in the same pass.
 */

const QUOTE = 0x22;
const MINUS = 0x2d;
const PLUS = 0x2b;

/** The index of the quote that closes the JSON string opened at `open`, -1 when none does. */
function closingQuote(text: string, open: number): number {
  let i = open;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i === -1) return -1;
    let j = i - 1;
    while (text.charCodeAt(j) === 0x5c) j--;
    // Closed by the first quote after an even run of backslashes.
    if ((i - j) % 2 === 1) return i;
  }
}

/** The end of the run of digits from `i`. */
function digitsEnd(text: string, i: number): number {
  let end = i;
  for (let c = text.charCodeAt(end); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++end));
  return end;
}

/** Where the whole part of a number literal from `start`, and its fraction if any, end. */
function mantissaEnd(text: string, start: number): number {
  const end = digitsEnd(text, start);
  if (end === start || text.charCodeAt(end) !== 0x2e) return end;
  const fraction = digitsEnd(text, end + 1);
  return fraction > end + 1 ? fraction : end;
}

/** Where the exponent from `at` (`e` or `E`, a sign or none, digits) ends; `at` where there is none. */
function exponentEnd(text: string, at: number): number {
  if ((text.charCodeAt(at) | 0x20) !== 0x65) return at;
  const sign = text.charCodeAt(at + 1);
  const digits = sign === PLUS || sign === MINUS ? at + 2 : at + 1;
  const end = digitsEnd(text, digits);
  return end > digits ? end : at;
}

/**
 * Whether a literal (its digits and point from `start` to `mantissa`, its exponent from there
 * to `end`) can be a number a double changes: only one with 16 digits and points in a row or
 * an exponent of three digits. Up to 15 significant digits, a decimal within a double's range
 * comes back from a double as written: most literals stop here.
 */
function mayChange(text: string, start: number, mantissa: number, end: number): boolean {
  if (mantissa - start >= 16) return true;
  // With four characters or more, `end - 3` is past the `e`: a digit there where there are three.
  const c = text.charCodeAt(end - 3);
  return end - mantissa >= 4 && c >= 0x30 && c <= 0x39;
}

/**
 * Reads JSON `text` once, strings skipped, and hands `visit` each number literal a double may
 * change, with where it starts, until `visit` answers true (the rest is left unread). Answers
 * false, as soon as it is found, where arrays and objects nest deeper than `maxDepth` (brackets
 * in strings aside).
 *
 * Strings, most of an answer, are crossed from quote to quote by indexOf, far faster than
 * character by character; every other character is read once or twice, JSON or not, so text
 * that is not JSON costs its length too (JSON.parse then refuses it).
 */
export function scanJson(
  text: string,
  maxDepth: number,
  visit: (literal: string, at: number) => boolean,
): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      // A string left open: nothing after it is JSON.
      if (i === -1) break;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return false;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
    else if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      const start = c === MINUS ? i + 1 : i;
      const mantissa = mantissaEnd(text, start);
      // A lone minus: no literal.
      if (mantissa === start) continue;
      const end = exponentEnd(text, mantissa);
      if (mayChange(text, start, mantissa, end) && visit(text.slice(i, end), i)) break;
      i = end - 1;
    }
  }
  return true;
}

/** A number literal of JSON text and the keys leading to it (a JSON pointer's, an item's index as digits). */
export interface PlacedLiteral {
  keys: string[];
  literal: string;
}

/** Where literals were found: one at this place, or some below it, by key. */
interface Place {
  literal?: string;
  under?: Map<string, Place>;
}

/** The place at `keys` below `root`, made along the way. */
function placeAt(root: Place, keys: readonly string[]): Place {
  let place = root;
  for (const key of keys) {
    place.under ??= new Map();
    let next = place.under.get(key);
    if (!next) {
      next = {};
      place.under.set(key, next);
    }
    place = next;
  }
  return place;
}

/**
 * Forgets what was found at `keys` and below, a member written again, which JSON.parse keeps
 * instead: one step per key, however much was found elsewhere (read at every key of an object,
 * a scan of all found was quadratic).
 */
function forget(root: Place, keys: readonly string[]): void {
  let place: Place | undefined = root;
  for (let k = 0; place && k < keys.length - 1; k++) place = place.under?.get(keys[k]!);
  place?.under?.delete(keys[keys.length - 1]!);
}

/** The literals at `place` and below, in the order their places were first found. */
function placed(place: Place, keys: string[], out: PlacedLiteral[]): PlacedLiteral[] {
  if (place.literal !== undefined) out.push({ keys: [...keys], literal: place.literal });
  for (const [key, next] of place.under ?? []) {
    keys.push(key);
    placed(next, keys, out);
    keys.pop();
  }
  return out;
}

/**
 * The number literals of `text`, JSON that JSON.parse read, that `wanted` picks, each with its
 * place in the parsed value (where a member's key repeats, the last member's, as JSON.parse keeps).
 */
export function placedLiterals(text: string, wanted: (literal: string) => boolean): PlacedLiteral[] {
  const found: Place = {};
  const keys: string[] = [];
  // Per level: whether it is an array, whose key is then its item's index.
  const arrays: boolean[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (expectKey) {
        keys[keys.length - 1] = JSON.parse(text.slice(i, end + 1)) as string;
        forget(found, keys);
      }
      expectKey = false;
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      keys.push('0');
      arrays.push(c === 0x5b);
      expectKey = c === 0x7b;
    } else if (c === 0x5d || c === 0x7d) {
      keys.pop();
      arrays.pop();
      // `{}` expected a key it never got.
      expectKey = false;
    } else if (c === 0x2c) {
      if (arrays[arrays.length - 1]) keys[keys.length - 1] = String(Number(keys[keys.length - 1]) + 1);
      else expectKey = true;
    } else if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      const end = exponentEnd(text, mantissaEnd(text, c === MINUS ? i + 1 : i));
      const literal = text.slice(i, end);
      if (wanted(literal)) placeAt(found, keys).literal = literal;
      i = end - 1;
    }
  }
  return placed(found, [], []);
}
