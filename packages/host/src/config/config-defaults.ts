import { isObject } from '@toolhost/engine/internal';
import { hostConfigSchema } from './config-schema.js';
import type { HostConfig, ResolvedHostConfig } from './host-config.js';

type SchemaNode = {
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
};

/**
 * A copy of `value` with the schema's defaults wherever it leaves a key out, sections
 * included (a config without `http` gets `http` with its defaults). A walk of our own schema
 * rather than ajv's `useDefaults`: that would need a second compiled validator (start-up
 * time) and changes the object it validates, which belongs to the caller.
 */
function fill(node: SchemaNode, value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (out[key] === undefined && child.default !== undefined) out[key] = structuredClone(child.default);
    else if (out[key] === undefined && hasDefaults(child)) out[key] = {};
    if (out[key] !== undefined) out[key] = fill(child, out[key]);
  }
  const entry = node.additionalProperties;
  if (isObject(entry) && !node.properties) {
    for (const [key, item] of Object.entries(out)) out[key] = fill(entry as SchemaNode, item);
  }
  return out;
}

function hasDefaults(node: SchemaNode): boolean {
  return Object.values(node.properties ?? {}).some((c) => c.default !== undefined || hasDefaults(c));
}

/** The config as the host runs it: every key that has a default is set (`host.config`). */
export function resolveConfig(config: HostConfig): ResolvedHostConfig {
  return fill(hostConfigSchema as SchemaNode, config) as ResolvedHostConfig;
}

/** The defaults alone, e.g. for the HTTP server used as a library without a config. */
export const CONFIG_DEFAULTS: ResolvedHostConfig = resolveConfig({});
