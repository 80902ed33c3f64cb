import type { ErrorObject, ValidateFunction } from './ajv-instance.js';

/**
 * An id past 2^53 reaches the agent as the string of its literal (`parseAnswerJson`), since
 * a double would change it. The agent copies it where the API wants that id back, a field of
 * type integer, and the call was refused: a string is not an integer. Where the schema refuses
 * a string only for its type, and the type is integer (or number) and the string an integer
 * (or any JSON number) literal, the string stands for the number it spells: validated as its
 * nearest double (bounds, formats), sent as the bare literal, digit for digit.
 */

/** Where in a value such strings are: `true` at one, and the keys leading to them above. */
export type NumberTexts = true | Map<string, NumberTexts>;

const INTEGER_TEXT = /^-?(?:0|[1-9]\d*)$/;
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The literal a string must be to stand for the `type` a schema wanted there (ajv's `params.type`). */
function literalFor(type: unknown): RegExp | undefined {
  const types: unknown[] = Array.isArray(type) ? type : [type];
  if (types.includes('number')) return NUMBER_TEXT;
  return types.includes('integer') ? INTEGER_TEXT : undefined;
}

/** The keys of a JSON pointer (`/items/0/id`). */
function pointerKeys(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(value: unknown, keys: readonly string[]): unknown {
  let node = value;
  for (const key of keys) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** `texts` with the string at `keys` added. */
function withText(texts: NumberTexts | undefined, keys: readonly string[]): NumberTexts {
  if (keys.length === 0) return true;
  const root = texts instanceof Map ? texts : new Map<string, NumberTexts>();
  let node = root;
  for (const key of keys.slice(0, -1)) {
    let next = node.get(key);
    if (!(next instanceof Map)) {
      next = new Map();
      node.set(key, next);
    }
    node = next;
  }
  node.set(keys[keys.length - 1]!, true);
  return root;
}

/** A copy of `value` with each string `texts` marks replaced by its number; the rest shared. */
function withNumbers(value: unknown, texts: NumberTexts): unknown {
  if (texts === true) return Number(value);
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string, unknown>;
  for (const [key, inner] of texts) copy[key] = withNumbers(copy[key], inner);
  return copy;
}

export interface NumberTextsCheck {
  /** Ajv's errors, none when the value is valid. */
  errors: ErrorObject[];
  /** Where the value holds strings taken as numbers; absent where it holds none. */
  texts?: NumberTexts;
}

/**
 * Validates `value`, taking each string that stands for a number (see above) as that number:
 * where the schema refused such strings for their type, a copy with their numbers in their
 * place is validated again, and its errors are what is wrong. `value` itself is left as given.
 */
export function validateNumberTexts(validate: ValidateFunction, value: unknown): NumberTextsCheck {
  if (validate(value)) return { errors: [] };
  const errors = validate.errors ?? [];
  let texts: NumberTexts | undefined;
  for (const e of errors) {
    const literal = e.keyword === 'type' ? literalFor(e.params.type) : undefined;
    if (literal === undefined) continue;
    const keys = pointerKeys(e.instancePath);
    const text = valueAt(value, keys);
    if (typeof text === 'string' && literal.test(text)) texts = withText(texts, keys);
  }
  if (texts === undefined) return { errors };
  if (!validate(withNumbers(value, texts))) return { errors: validate.errors ?? [] };
  return { errors: [], texts };
}

/** The number texts of the value under `key`. */
export function textsUnder(texts: NumberTexts | undefined, key: string | number): NumberTexts | undefined {
  return texts instanceof Map ? texts.get(String(key)) : undefined;
}

/**
 * JSON text of `value` as JSON.stringify writes it, but each string `texts` marks as the bare
 * number literal it holds, as written: JSON.stringify can only quote it, or write a double.
 */
export function stringifyWithNumbers(value: unknown, texts: NumberTexts | undefined): string {
  return written(value, texts) as string;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

function written(value: unknown, texts: NumberTexts | undefined): string | undefined {
  if (texts === true && typeof value === 'string' && NUMBER_TEXT.test(value)) return value;
  // An object with a toJSON is written as JSON.stringify writes what that answers, strings quoted.
  if (!(texts instanceof Map) || value === null || typeof value !== 'object' || hasToJson(value))
    return JSON.stringify(value);
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) parts.push(written(value[i], texts.get(String(i))) ?? 'null');
    return `[${parts.join(',')}]`;
  }
  for (const key of Object.keys(value)) {
    const member = written((value as Record<string, unknown>)[key], texts.get(key));
    if (member !== undefined) parts.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${parts.join(',')}}`;
}
