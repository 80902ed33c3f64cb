import { readConfigFile } from './load-config.js';

/**
 * Set by the MCP Bundle's manifest to the manifest's own path: the host is running from a
 * bundle, and its environment variables are the bundle's fields (`user_config`).
 */
export const BUNDLE_MANIFEST_ENV = 'TOOLHOST_BUNDLE_MANIFEST';

/** A whole value that is still a `${…}` template: the MCP client did not fill it in. */
const PLACEHOLDER = /^\$\{([^}]*)\}$/;

interface BundleManifest {
  server?: { mcp_config?: { env?: Record<string, string> } };
  user_config?: Record<string, { title?: string }>;
}

/** A bundle field as its user sees it: the key and the title the extension's settings show. */
export interface BundleField {
  key: string;
  title: string;
}

/** Environment variable → the bundle field that fills it, when the host runs from a bundle. */
export function bundleFields(env: Readonly<Record<string, string | undefined>>): Map<string, BundleField> {
  const file = env[BUNDLE_MANIFEST_ENV];
  const out = new Map<string, BundleField>();
  if (!file || PLACEHOLDER.test(file)) return out;
  let manifest: BundleManifest;
  try {
    manifest = readConfigFile(file, 'bundle manifest') as BundleManifest;
  } catch {
    // Without its manifest the messages name environment variables, which still work.
    return out;
  }
  for (const [name, value] of Object.entries(manifest.server?.mcp_config?.env ?? {})) {
    const key = /^\$\{user_config\.([^}]+)\}$/.exec(value)?.[1];
    if (key) out.set(name, { key, title: manifest.user_config?.[key]?.title ?? key });
  }
  return out;
}

/**
 * What a person does to give a value the host reads from `name`: fill in the bundle's field
 * when running from a bundle (an environment variable means nothing to its user), else set
 * the variable.
 */
export function howToSet(name: string, fields: ReadonlyMap<string, BundleField>): string {
  const field = fields.get(name);
  return field ? `fill in the extension's “${field.title}” field` : `set ${name}`;
}

/**
 * The environment without values that are an unfilled `${…}` template, and a warning for
 * each: a client that leaves an optional bundle field empty may pass the template itself,
 * and taken as a value it would be sent upstream as a token.
 */
export function withoutPlaceholders(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; warnings: string[] } {
  const fields = bundleFields(env);
  const out: NodeJS.ProcessEnv = {};
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const template = value === undefined ? undefined : PLACEHOLDER.exec(value)?.[1];
    if (template === undefined) {
      out[name] = value;
      continue;
    }
    const field = fields.get(name) ?? fieldOfTemplate(template, fields);
    warnings.push(
      `${name} is the unfilled placeholder \${${template}}${field ? ` (the extension's “${field.title}” field)` : ''}; treated as unset.`,
    );
  }
  return { env: out, warnings };
}

function fieldOfTemplate(
  template: string,
  fields: ReadonlyMap<string, BundleField>,
): BundleField | undefined {
  const key = /^user_config\.(.+)$/.exec(template)?.[1];
  if (!key) return undefined;
  return [...fields.values()].find((f) => f.key === key) ?? { key, title: key };
}
