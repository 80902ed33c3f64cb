/**
 * The schemas that judge one place in a value (`/items/0/id`), found from the schema itself:
 * ajv names a schema only where it failed, and a string taken as a number must be judged by
 * every schema that could judge that number (a bound in another `allOf` member, in the branch
 * of a `oneOf` its double did not pick). So all are gathered, every branch's: allOf, anyOf,
 * oneOf, not, if/then/else, dependentSchemas, each local `$ref` followed. Where one cannot be
 * followed (a `$ref` to another document, `$dynamicRef`), the place has no answer.
 */

import { pointerKeys } from './json-pointer.js';

type Schema = unknown;

interface Place {
  /** Undefined where some schema cannot be followed. */
  schemas: readonly Schema[] | undefined;
  /** Whether one of them lists whole values (`enum`, `const`), which hold what is below as doubles. */
  lists: boolean;
  /** Whether one of them applies others only on a condition (`anyOf`, `if`, `not` …). */
  branches: boolean;
  /** The places below, by key; an array's items by one key `*` where no schema tells them by position. */
  below?: Map<string, Place>;
}

export interface SchemasAt {
  schemas: readonly Schema[] | undefined;
  /** Whether a schema above the place lists whole values that hold it (`enum`, `const`). */
  listedAbove: boolean;
  /**
   * Whether some of `schemas` judge the place only on a condition: a branch of an `anyOf` or
   * `oneOf` (there or above), `not`, `if`/`then`/`else`, `dependentSchemas`. Gathered with the
   * rest, they are not all the place must pass.
   */
  branched: boolean;
}

/** What applies schemas on a condition. */
const BRANCHING = ['anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies'];

const LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const ONES = ['not', 'if', 'then', 'else'] as const;

export const isObject = (s: unknown): s is Record<string, unknown> =>
  typeof s === 'object' && s !== null && !Array.isArray(s);

function ownValue(node: unknown, key: string): unknown {
  return isObject(node) || Array.isArray(node)
    ? Object.getOwnPropertyDescriptor(node, key)?.value
    : undefined;
}

/** Whether a schema tells an array's items by position (`items` as a list, `prefixItems`). */
const positional = (s: Schema) => isObject(s) && (Array.isArray(s.items) || Array.isArray(s.prefixItems));

export class SchemaPlaces {
  private readonly top: Place;
  private readonly patterns = new Map<string, RegExp | undefined>();

  constructor(
    private readonly root: Schema,
    private readonly value: unknown,
  ) {
    this.top = this.place(this.closure([root]));
  }

  /** The schemas at `keys` in the value (keys of a JSON pointer), each place found once. */
  at(keys: readonly string[]): SchemasAt {
    let place = this.top;
    let node = this.value;
    let listedAbove = false;
    let branched = place.branches;
    for (const key of keys) {
      if (place.schemas === undefined) return { schemas: undefined, listedAbove, branched };
      listedAbove ||= place.lists;
      const inArray = Array.isArray(node);
      const known = inArray && !place.schemas.some(positional) ? '*' : key;
      place.below ??= new Map();
      let next = place.below.get(known);
      if (next === undefined) {
        next = this.place(this.closure(this.step(place.schemas, inArray, key)));
        place.below.set(known, next);
      }
      place = next;
      branched ||= place.branches;
      node = ownValue(node, key);
    }
    return { schemas: place.schemas, listedAbove, branched };
  }

  private place(schemas: Schema[] | undefined): Place {
    const lists = schemas?.some((s) => isObject(s) && ('enum' in s || 'const' in s)) ?? false;
    const branches = schemas?.some((s) => isObject(s) && BRANCHING.some((k) => k in s)) ?? false;
    return { schemas, lists, branches };
  }

  /** The schemas that judge a member or an item, from those of its object or array. */
  private step(schemas: readonly Schema[], inArray: boolean, key: string): Schema[] | undefined {
    const out: Schema[] = [];
    for (const s of schemas) {
      if (!isObject(s)) continue;
      const found = inArray ? this.itemSchemas(s, Number(key)) : this.memberSchemas(s, key);
      if (found === undefined) return undefined;
      out.push(...found);
    }
    return out;
  }

  private itemSchemas(s: Record<string, unknown>, index: number): Schema[] {
    const out: Schema[] = [];
    const { items, prefixItems, additionalItems } = s;
    if (Array.isArray(items)) out.push(index < items.length ? items[index] : additionalItems);
    else out.push(items);
    if (Array.isArray(prefixItems) && index < prefixItems.length) out.push(prefixItems[index]);
    out.push(s.contains, s.unevaluatedItems);
    return out.filter((x) => x !== undefined);
  }

  private memberSchemas(s: Record<string, unknown>, key: string): Schema[] | undefined {
    const out: Schema[] = [ownValue(s.properties, key)];
    let named = out[0] !== undefined;
    const patterns = isObject(s.patternProperties) ? s.patternProperties : {};
    for (const pattern of Object.keys(patterns)) {
      const regex = this.regex(pattern);
      if (regex === undefined) return undefined;
      if (regex.test(key)) {
        out.push(patterns[pattern]);
        named = true;
      }
    }
    if (!named) out.push(s.additionalProperties);
    out.push(s.unevaluatedProperties);
    return out.filter((x) => x !== undefined);
  }

  private regex(pattern: string): RegExp | undefined {
    if (!this.patterns.has(pattern)) {
      let regex: RegExp | undefined;
      try {
        regex = new RegExp(pattern, 'u');
      } catch {
        regex = undefined;
      }
      this.patterns.set(pattern, regex);
    }
    return this.patterns.get(pattern);
  }

  /** `schemas` and every schema they apply at the same place, each once. */
  private closure(schemas: Schema[] | undefined): Schema[] | undefined {
    if (schemas === undefined) return undefined;
    const seen = new Set<Schema>();
    const pending = [...schemas];
    while (pending.length > 0) {
      const s = pending.pop();
      if (seen.has(s)) continue;
      if (typeof s === 'boolean') {
        seen.add(s);
        continue;
      }
      if (!isObject(s) || '$dynamicRef' in s || '$recursiveRef' in s) return undefined;
      seen.add(s);
      for (const k of LISTS) if (Array.isArray(s[k])) pending.push(...(s[k] as Schema[]));
      for (const k of ONES) if (s[k] !== undefined) pending.push(s[k]);
      for (const k of ['dependentSchemas', 'dependencies'] as const) {
        if (isObject(s[k])) pending.push(...Object.values(s[k]).filter((d) => !Array.isArray(d)));
      }
      if (s.$ref !== undefined) {
        const target = this.resolve(s.$ref);
        if (target === undefined) return undefined;
        pending.push(target);
      }
    }
    return [...seen];
  }

  /** A `$ref` within the root schema (`#`, `#/definitions/Id`); undefined for any other. */
  private resolve(ref: unknown): Schema {
    if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
    let pointer: string;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (pointer === '') return this.root;
    if (!pointer.startsWith('/')) return undefined;
    let node: unknown = this.root;
    for (const key of pointerKeys(pointer)) node = ownValue(node, key);
    return node;
  }
}
