import { closest, pointerKeys, quoted, valueAt } from '@toolhost/engine/internal';
import type { ErrorObject } from 'ajv';

/** The part of the config schema this module reads: how to walk to a key, and what it documents. */
interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  'x-env'?: string;
}

/** The schema of the key at `segments` (`['toolSets', 'GridApi', 'baseUrl']`), through maps and arrays. */
function schemaAt(root: SchemaNode, segments: readonly string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const segment of segments) {
    if (!node) return undefined;
    if (node.properties?.[segment]) node = node.properties[segment];
    else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else if (node.items && /^\d+$/.test(segment)) node = node.items;
    else return undefined;
  }
  return node;
}

/**
 * One validation error in a person's words: the key, with "did you mean" for an unknown key
 * (`toolsets` → `toolSets`, `baseURL` → `baseUrl`), and for a value outside an enum the
 * accepted values and the environment variable that also sets the key.
 */
export function describeConfigProblem(error: ErrorObject, schema: object, data: unknown): string {
  const segments = pointerKeys(error.instancePath);
  const key = segments.join('.');
  const node = schemaAt(schema as SchemaNode, segments);
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    const match = closest(extra, Object.keys(node?.properties ?? {}));
    const full = (name: string) => `${key ? `${key}.` : ''}${name}`;
    return `unknown key ${quoted(full(extra))}${match ? ` (did you mean ${quoted(full(match))}?)` : ''}`;
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    const env = node?.['x-env'] ? `; set in the config file or with ${node['x-env']}` : '';
    const value = valueAt(data, segments);
    return `${quoted(key || '(root)')} is ${typeof value === 'string' ? quoted(value) : JSON.stringify(value)}; expected one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${env}`;
  }
  const env = node?.['x-env'] ? ` (set in the config file or with ${node['x-env']})` : '';
  return `${quoted(key || '(root)')} ${error.message}${env}`;
}
