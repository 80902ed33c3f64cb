import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { hostConfigSchema } from './config-schema.js';
import type { HostConfig } from './host-config.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (
  a: Ajv,
) => Ajv;
let validator: ReturnType<Ajv['compile']> | undefined;

/** Validates a config object; errors name the offending key (`toolSets.GridApi.baseUrl`). */
export function validateConfig(config: unknown, source = 'config'): HostConfig {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validator = ajv.compile(hostConfigSchema);
  }
  if (!validator(config)) {
    const problems = (validator.errors ?? []).map((e) => {
      const key = e.instancePath.slice(1).replace(/\//g, '.');
      if (e.keyword === 'additionalProperties') {
        const extra = (e.params as { additionalProperty: string }).additionalProperty;
        return `unknown key '${key ? `${key}.` : ''}${extra}'`;
      }
      return `'${key || '(root)'}' ${e.message}`;
    });
    throw new ConfigError(`Invalid ${source}: ${problems.join('; ')}`);
  }
  return config as HostConfig;
}

/** Reads a JSON or YAML config file. */
export function loadConfigFile(path: string): { config: HostConfig; dir: string } {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`Cannot read config file ${file}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  let data: unknown;
  try {
    data = ['.yaml', '.yml'].includes(extname(file)) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`Cannot parse config file ${file}: ${(e as Error).message}`);
  }
  return { config: validateConfig(data ?? {}, `config file ${file}`), dir: dirname(file) };
}
