import type { JsonSchema } from '@toolhost/core';

/** Subschemas smaller than this are left in place: a `$ref` saves little on them and reads worse. */
const MIN_SHARED_BYTES = 200;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one subschema, a list of them, or a map of names to them. */
const ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', 'dependentSchemas'];

/** Calls `visit` on every subschema directly under `schema`, with a name for it (its property's, if any). */
function eachChild(schema: Node, visit: (child: Node, name: string) => void): void {
  for (const key of ONE) if (isNode(schema[key])) visit(schema[key] as Node, key);
  for (const key of LIST) {
    const list = schema[key];
    if (Array.isArray(list)) for (const c of list) if (isNode(c)) visit(c, key);
  }
  for (const key of MAP) {
    const map = schema[key];
    if (isNode(map)) for (const [name, c] of Object.entries(map)) if (isNode(c)) visit(c, name);
  }
}

function hasReferences(schema: Node): boolean {
  if (typeof schema.$ref === 'string' || '$defs' in schema || 'definitions' in schema) return true;
  let found = false;
  eachChild(schema, (c) => {
    found ||= hasReferences(c);
  });
  return found;
}

/**
 * A request-body schema with every subschema that occurs more than once (and is not tiny)
 * written once under `$defs` and referred to by `$ref`: the same schema, accepting the same
 * bodies, in a fraction of the text. HubSpot's form schemas repeat each field definition a
 * dozen times (125 KB become 27 KB), and the result budget would otherwise cut them into a
 * summary an agent cannot build a body from. A schema that already uses references is left
 * whole, since moving its parts could change what they point at.
 */
export function compactSchema(schema: JsonSchema): JsonSchema {
  const root = schema as Node;
  if (hasReferences(root)) return schema;
  const counts = new Map<string, number>();
  const count = (node: Node) => {
    const text = JSON.stringify(node);
    if (text.length >= MIN_SHARED_BYTES) counts.set(text, (counts.get(text) ?? 0) + 1);
    eachChild(node, count);
  };
  eachChild(root, count);
  if (![...counts.values()].some((n) => n > 1)) return schema;

  const defs: Record<string, Node> = {};
  const nameOf = new Map<string, string>();
  const rewrite = (node: Node, name: string): Node => {
    const text = JSON.stringify(node);
    if ((counts.get(text) ?? 0) < 2) return rewriteChildren(node);
    let def = nameOf.get(text);
    if (def === undefined) {
      def = uniqueName(name, defs);
      nameOf.set(text, def);
      defs[def] = {}; // reserves the name before the children take theirs
      defs[def] = rewriteChildren(node);
    }
    return { $ref: `#/$defs/${def}` };
  };
  const rewriteChildren = (node: Node): Node => {
    const out: Node = { ...node };
    for (const key of ONE) if (isNode(node[key])) out[key] = rewrite(node[key] as Node, key);
    for (const key of LIST) {
      const list = node[key];
      if (Array.isArray(list)) out[key] = list.map((c) => (isNode(c) ? rewrite(c, key) : c));
    }
    for (const key of MAP) {
      const map = node[key];
      if (isNode(map))
        out[key] = Object.fromEntries(
          Object.entries(map).map(([n, c]) => [n, isNode(c) ? rewrite(c, n) : c]),
        );
    }
    return out;
  };
  const compacted = rewriteChildren(root);
  compacted.$defs = defs;
  return compacted as JsonSchema;
}

/** Request schemas longer than this (about 2,000 tokens) are compacted; shorter ones stay plain. */
export const COMPACT_ABOVE_BYTES = 8000;

/** The schema as a result carries it: as it is up to {@link COMPACT_ABOVE_BYTES}, compacted above. */
export function compactLargeSchema(schema: JsonSchema): JsonSchema {
  return JSON.stringify(schema).length > COMPACT_ABOVE_BYTES ? compactSchema(schema) : schema;
}

function uniqueName(base: string, taken: Record<string, unknown>): string {
  const clean = base.replace(/[^A-Za-z0-9_]/g, '_') || 'schema';
  if (!(clean in taken)) return clean;
  let i = 2;
  while (`${clean}${i}` in taken) i++;
  return `${clean}${i}`;
}

/**
 * The inverse of {@link compactSchema}: every `$ref` into the schema's `$defs` replaced by what
 * it points at, and `$defs` gone. For a reader that wants the schema written out in full.
 */
export function expandSchemaReferences(schema: JsonSchema): JsonSchema {
  const root = schema as Node;
  const defs = root.$defs;
  if (!isNode(defs)) return schema;
  const expand = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(expand);
    if (!isNode(v)) return v;
    const ref = v.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/$defs/') && Object.keys(v).length === 1)
      return expand(defs[ref.slice('#/$defs/'.length)]);
    return Object.fromEntries(Object.entries(v).map(([k, c]) => [k, expand(c)]));
  };
  const { $defs: _defs, ...rest } = root;
  return expand(rest) as JsonSchema;
}
