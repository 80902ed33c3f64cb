import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import { parseProblem, quoted } from '@toolhost/engine/internal';
import type { Ajv } from 'ajv';
import { HostError, hasCode } from '../host-error.js';
import { hostConfigSchema } from './config-schema.js';
import { configProblems, rootConfigSchema, sectionSchema } from './config-sections.js';
import { describeConfigProblem } from './describe-config-problem.js';
import type { HostConfig } from './host-config.js';

// yaml is loaded only for YAML files, and ajv's compiler only when no prebuilt validator exists.
const require = createRequire(import.meta.url);

export class ConfigError extends HostError {
  readonly code = 'config_invalid' as const;
  static override isInstance = hasCode<ConfigError>('config_invalid');
  override readonly name = 'ConfigError';
}

type Validator = ReturnType<Ajv['compile']>;
/** The checks of the root and of each section, by name, made at first use. */
const checks = new Map<string, Validator>();
let compiler: Ajv | undefined;

/**
 * The check of the config's root or of one section: the one ajv generated from the schema at
 * build time (scripts/compile-config-validator.mjs), else compiled now (running from source).
 */
function configCheck(section: string): Validator {
  let check = checks.get(section);
  if (!check) {
    check = generatedCheck(section) ?? compiledCheck(section);
    checks.set(section, check);
  }
  return check;
}

function generatedCheck(section: string): Validator | undefined {
  try {
    return require(`./validators/${section}.generated.cjs`) as Validator;
  } catch {
    return undefined;
  }
}

function compiledCheck(section: string): Validator {
  if (!compiler) {
    const { Ajv } = require('ajv') as typeof import('ajv');
    const formats = require('ajv-formats') as { default?: unknown };
    const addFormats = (formats.default ?? formats) as (a: Ajv) => Ajv;
    compiler = addFormats(new Ajv({ allErrors: true, strict: false }));
  }
  return compiler.compile(section === 'root' ? rootConfigSchema : sectionSchema(section));
}

/** Validates a config object; errors name the offending key (`toolSets.GridApi.baseUrl`). */
export function validateConfig(config: unknown, source = 'config'): HostConfig {
  const errors = configProblems(config, configCheck);
  if (errors.length > 0) {
    const problems = errors.map((e) => describeConfigProblem(e, hostConfigSchema, config));
    throw new ConfigError(`Invalid ${source}: ${problems.join('; ')}`);
  }
  return config as HostConfig;
}

/** The most a config or secrets file may hold (docs/configuration.md): real ones hold a few kilobytes. */
export const CONFIG_FILE_BYTES = 1024 * 1024;

/** Why JSON `text` or YAML does not parse: where, not what (an alias's name, the text around the fault). */
export function configParseProblem(e: unknown, text: string): string {
  const { code, linePos } = e as { code?: string; linePos?: { line: number; col: number }[] };
  if (code && linePos?.[0])
    return `${code.toLowerCase().replace(/_/g, ' ')} at line ${linePos[0].line}, column ${linePos[0].col}`;
  return e instanceof ReferenceError ? 'an alias names no anchor set before it' : parseProblem(e, text);
}

/**
 * A YAML file's data, refusing what yaml only warns of: an unknown tag (`!Passw0rd`) was read as
 * an empty value, and the warning, quoting its line, written to stderr.
 */
function parseYaml(text: string): unknown {
  const doc = (require('yaml') as typeof import('yaml')).parseDocument(text);
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) throw problem;
  return doc.toJS();
}

/**
 * The data of a JSON or YAML (by its extension) config or secrets file, `what` in errors. Read no
 * further than one byte past CONFIG_FILE_BYTES: read whole, a huge file would take that much
 * memory, and one that never ends (`/dev/zero`) all of it.
 */
export function readConfigFile(file: string, what: string): unknown {
  const bytes = Buffer.alloc(CONFIG_FILE_BYTES + 1);
  let size = 0;
  try {
    const fd = openSync(file, 'r');
    try {
      for (let n = -1; n !== 0 && size < bytes.length; size += n)
        n = readSync(fd, bytes, size, bytes.length - size, null);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `Cannot read ${what} ${quoted(file)}: ${code === 'ENOENT' ? 'no such file' : (code ?? e)}`,
    );
  }
  if (size > CONFIG_FILE_BYTES)
    throw new ConfigError(
      `The ${what} ${quoted(file)} holds more than ${CONFIG_FILE_BYTES} bytes (1 MiB), the most a config or secrets file may hold.`,
    );
  // A byte order mark (Windows editors) is no part of the JSON.
  const text = bytes.toString('utf8', 0, size).replace(/^\uFEFF/, '');
  try {
    return ['.yaml', '.yml'].includes(extname(file)) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`Cannot parse ${what} ${quoted(file)}: ${configParseProblem(e, text)}`);
  }
}

/** Reads a JSON or YAML config file. */
export function loadConfigFile(path: string): { config: HostConfig; dir: string } {
  const file = resolve(path);
  const data = readConfigFile(file, 'config file');
  return { config: validateConfig(data ?? {}, `config file ${quoted(file)}`), dir: dirname(file) };
}
