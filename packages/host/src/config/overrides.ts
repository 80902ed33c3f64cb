import { quoted } from '@toolhost/engine/internal';
import type { HostConfig } from './host-config.js';
import { ConfigError } from './load-config.js';

/** What people set most, from flags or the environment, over the config file. */
export interface ConfigOverrides {
  toolSets?: string[];
  readOnly?: boolean;
  /** Ask the person before every write (tools.confirmWrites). */
  confirmWrites?: boolean;
  allow?: string[];
  deny?: string[];
  logLevel?: string;
  /** `static` (every tool listed) or `dynamic` (search_tools, describe_tools, call_tool). */
  catalog?: string;
  /** http.port: where `serve --http` (without a number) and the OAuth pages listen. */
  port?: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** `a,b , c` → `['a', 'b', 'c']`. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function flag(env: Readonly<Record<string, string | undefined>>, name: string): boolean | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
  throw new ConfigError(`${name} is ${quoted(value)}; use 1 or 0 (true or false).`);
}

function portNumber(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (/^\d+$/.test(value) && n <= 65535) return n;
  throw new ConfigError(`${name} is ${quoted(value)}; expected a port number 0-65535 (0: any free port).`);
}

/** The environment's overrides: TOOLHOST_TOOL_SETS, TOOLHOST_READ_ONLY, TOOLHOST_CONFIRM_WRITES, TOOLHOST_ALLOW, TOOLHOST_DENY, TOOLHOST_LOG_LEVEL, TOOLHOST_CATALOG, TOOLHOST_PORT. */
export function overridesFromEnv(env: Readonly<Record<string, string | undefined>>): ConfigOverrides {
  const list = (name: string) => (env[name] ? commaList(env[name]!) : undefined);
  return {
    toolSets: list('TOOLHOST_TOOL_SETS'),
    readOnly: flag(env, 'TOOLHOST_READ_ONLY'),
    confirmWrites: flag(env, 'TOOLHOST_CONFIRM_WRITES'),
    allow: list('TOOLHOST_ALLOW'),
    deny: list('TOOLHOST_DENY'),
    logLevel: env.TOOLHOST_LOG_LEVEL || undefined,
    catalog: env.TOOLHOST_CATALOG || undefined,
    port: portNumber(env, 'TOOLHOST_PORT'),
  };
}

/** Flags win over the environment, which wins over the file; each replaces the file's value. */
export function applyOverrides(config: HostConfig, ...layers: ConfigOverrides[]): HostConfig {
  const pick = <K extends keyof ConfigOverrides>(key: K): ConfigOverrides[K] =>
    layers.map((l) => l[key]).find((v) => v !== undefined);
  const tools = { ...config.tools };
  // These overrides bear the names of the `tools` keys they replace.
  for (const key of ['toolSets', 'readOnly', 'confirmWrites', 'allow', 'deny'] as const) {
    const value = pick(key);
    if (value !== undefined) Object.assign(tools, { [key]: value });
  }
  const out: HostConfig = { ...config, tools };
  const catalog = pick('catalog');
  // A wrong value is refused by the config check, which names mcp.catalog.
  if (catalog) out.mcp = { ...config.mcp, catalog: catalog as 'static' };
  const port = pick('port');
  if (port !== undefined) out.http = { ...config.http, port };
  const level = pick('logLevel');
  if (level)
    out.logging = { ...config.logging, level: checkLogLevel(level, 'TOOLHOST_LOG_LEVEL or --log-level') };
  return out;
}

/** A log level pino knows, or an error that names where the wrong one came from. */
export function checkLogLevel(level: string, source: string): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new ConfigError(
    `Unknown log level ${quoted(level)} (from ${source}); use one of ${LOG_LEVELS.join(', ')}.`,
  );
}
