import { ToolError } from '@toolhost/core';
import { MAX_VALUE_DEPTH, tooDeep } from './nesting.js';

const notData = (name: string, what: string) =>
  ToolError.invalidArgument(
    name,
    `Parameter '${name}' holds ${what}, which is not JSON data; nothing was sent.`,
  );

/**
 * The copies made here: JSON data, frozen at every level, so that nothing (no getter put on
 * one, no value swapped) can make them other than what was copied. Given back one of them, as
 * write safety, which copies a write call's arguments to key it, hands them to the engine,
 * nothing is read again; any other object, frozen or not, is copied.
 */
const copies = new WeakSet<object>();

/**
 * A call's arguments as JSON data, each property read once, or an invalid_argument error
 * naming the parameter (its path) at fault. Arguments parsed from JSON are data already; an
 * embedder's may not be, and were checked and then serialized as they were: a getter or Proxy
 * that threw failed the call as an internal error, one that answered each read differently had
 * one value checked and another sent, and JSON.stringify dropped a function or Symbol and
 * turned a Map into `{}`. Values JSON has no form for are refused rather than changed;
 * `undefined` stays absent; a Date's `toJSON` (or a plain object's) is asked once, for what is sent.
 * The copy is frozen (see `copies`); a caller that changes arguments changes its own copy of the top.
 */
export function plainArguments(raw: unknown): Readonly<Record<string, unknown>> {
  if (raw === undefined || raw === null) return EMPTY;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw ToolError.invalidArgument('arguments', 'Arguments must be a JSON object of named parameters.');
  if (copies.has(raw)) return raw as Record<string, unknown>;
  const copy = new Copy('').object(raw, '', 0) as Record<string, unknown>;
  copies.add(copy);
  return copy;
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});
copies.add(EMPTY);

/** A copy of one parameter's value (all of them at the root), errors naming where it went wrong. */
class Copy {
  /** The parameter being copied, which an error about depth names (as refuseTooDeep does). */
  constructor(private readonly param: string) {}

  value(value: unknown, at: string, depth: number): unknown {
    switch (typeof value) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'undefined':
        return value;
      case 'object':
        if (value === null) return null;
        if (depth >= MAX_VALUE_DEPTH) throw tooDeep(this.param);
        return this.object(value, at, depth + 1);
      default:
        throw notData(
          at,
          typeof value === 'bigint' ? 'a BigInt (give a number or a string)' : `a ${typeof value}`,
        );
    }
  }

  /** An array, or an object's own enumerable properties (or its toJSON's answer); a Map, a Buffer and the like refused. */
  object(value: object, at: string, depth: number): unknown {
    const where = at || 'arguments';
    const kind = unreadable(where, () =>
      Array.isArray(value) ? 'Array' : Object.prototype.toString.call(value).slice(8, -1),
    );
    if (kind !== 'Array' && kind !== 'Object' && kind !== 'Date') throw notData(where, `a ${kind}`);
    // A Date, or an object of one's own with a toJSON, stands for what that answers (asked once);
    // not the arguments themselves, which must stay an object of named parameters.
    const toJSON =
      kind === 'Array' || at === ''
        ? undefined
        : unreadable(where, () => (value as { toJSON?: unknown }).toJSON);
    if (typeof toJSON === 'function')
      return this.value(
        unreadable(where, () => toJSON.call(value)),
        at,
        depth,
      );
    const keys = unreadable(where, () => (Array.isArray(value) ? undefined : Object.keys(value)));
    const item = (key: string | number) => {
      const path = typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`;
      const copier = at === '' ? new Copy(String(key)) : this;
      return copier.value(
        unreadable(path, () => (value as Record<string, unknown>)[key]),
        path,
        depth,
      );
    };
    if (keys === undefined) {
      const length = unreadable(where, () => (value as unknown[]).length);
      return Object.freeze(Array.from({ length }, (_, i) => item(i)));
    }
    // Defined, not assigned: JSON.parse makes `__proto__` an own key, which an assignment would
    // make the copy's prototype, its members then read as parameters but never checked as given.
    const copy: Record<string, unknown> = {};
    for (const key of keys) {
      const v = item(key);
      if (v !== undefined) Object.defineProperty(copy, key, { value: v, enumerable: true });
    }
    return Object.freeze(copy);
  }
}

/** What `read` answers, or, where a getter or a Proxy's trap throws (the embedder's error), the error naming `at`. */
function unreadable<T>(at: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (ToolError.isInstance(e)) throw e;
    throw notData(at, 'a value that could not be read (reading it threw an error)');
  }
}
