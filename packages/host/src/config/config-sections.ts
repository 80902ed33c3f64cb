import type { ErrorObject } from 'ajv';
import { hostConfigSchema } from './config-schema.js';

/*
 * The config schema checked in parts: the root (its own scalar keys, and which keys exist) and
 * each object section (`toolSets`, `auth`, `http`, …) on its own, so that a host loads and runs
 * the validation code of the sections its config has, not of all of them (the `http` section
 * alone is 40 % of the generated code). The errors are those of the whole schema, in its order.
 */

type Schema = { type?: unknown };
type Check = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const properties = hostConfigSchema.properties as Record<string, Schema>;
const keys = Object.keys(properties);

/** The top-level keys validated on their own: every one whose value is an object. */
export const CONFIG_SECTIONS: readonly string[] = keys.filter((key) => properties[key]?.type === 'object');

/** The schema of one section (a key of `CONFIG_SECTIONS`). */
export function sectionSchema(section: string): object {
  const schema = CONFIG_SECTIONS.includes(section) ? properties[section] : undefined;
  if (!schema) throw new Error(`No config section ${section}`);
  return schema;
}

/** The whole schema with each section's content left to its own check (any value passes here). */
export const rootConfigSchema = {
  ...hostConfigSchema,
  properties: Object.fromEntries(
    keys.map((key) => [key, CONFIG_SECTIONS.includes(key) ? {} : properties[key]]),
  ),
};

/** A section's error as the whole schema reports it: its path from the config's root. */
function fromRoot(section: string, error: ErrorObject): ErrorObject {
  return {
    ...error,
    instancePath: `/${section}${error.instancePath}`,
    schemaPath: `#/properties/${section}${error.schemaPath.slice(1)}`,
  };
}

/** Where an error sorts: the root's own (unknown keys, the root's type) first, then by key in schema order. */
function rank(error: ErrorObject): number {
  const key = error.instancePath.split('/')[1];
  return key === undefined ? -1 : keys.indexOf(key.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The problems of a config (none: valid), by the root's check and the check of each section
 * present, as `check(section)` gives it (`'root'` for the root).
 */
export function configProblems(data: unknown, check: (section: string) => Check): ErrorObject[] {
  const root = check('root');
  const errors = root(data) ? [] : [...(root.errors ?? [])];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return errors;
  for (const section of CONFIG_SECTIONS) {
    const value = (data as Record<string, unknown>)[section];
    if (value === undefined) continue;
    const validate = check(section);
    if (!validate(value)) errors.push(...(validate.errors ?? []).map((e) => fromRoot(section, e)));
  }
  // Stable: within a key, the order its check gave.
  return errors.sort((a, b) => rank(a) - rank(b));
}
