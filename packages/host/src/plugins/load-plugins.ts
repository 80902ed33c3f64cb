import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CONTRACT_VERSION,
  checkContractVersion,
  type PluginContainer,
  TOOL_SET_TOKEN,
  type ToolPlugin,
  type ToolSetDefinition,
} from '@toolhost/core';
import { checkAgainstSchema, checkToolSet, describeDeclarationProblems } from '@toolhost/engine';
import { didYouMean, escapeUnseen, quoted } from '@toolhost/engine/internal';
import { resolve as resolveImport } from 'import-meta-resolve';
import type { DependencyContainer } from 'tsyringe';
import { type HostConfig, pluginOptionsOf } from '../config/host-config.js';
import { ConfigError } from '../config/load-config.js';
import { settingEnvName } from '../config/settings-from-env.js';
import { HostError, hasCode } from '../host-error.js';
import { discoverPlugins } from './discover-plugins.js';

export class PluginLoadError extends HostError {
  readonly code = 'plugin_load_failed' as const;
  static override isInstance = hasCode<PluginLoadError>('plugin_load_failed');
  override readonly name = 'PluginLoadError';
  // Escaped whole: beside names quoted, it holds Node's resolution errors, the directories
  // searched and what a plugin says of itself (name, version, contract), any of them any text.
  constructor(message: string) {
    super(escapeUnseen(message));
  }
}

function isPlugin(value: unknown): value is ToolPlugin {
  const v = value as Partial<ToolPlugin> | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    typeof v.toolSet === 'string' &&
    typeof v.register === 'function'
  );
}

/** Refuses a plugin written for a contract this host's core cannot execute, naming both versions. */
export function assertCompatible(plugin: Pick<ToolPlugin, 'name' | 'version' | 'contractVersion'>): void {
  const check = checkContractVersion(plugin.contractVersion, CONTRACT_VERSION);
  if (!check.ok) {
    throw new PluginLoadError(
      `Plugin ${plugin.name}@${plugin.version} declares plugin contract ${String(plugin.contractVersion)}; this host executes contract ${CONTRACT_VERSION}: ${check.reason}.`,
    );
  }
}

/** A plugin named by path (`./my-plugin`, `/opt/plugins/x`, `.` in its own folder, `.\x`) rather than by package name. */
const isPath = (name: string): boolean => isAbsolute(name) || /^\.\.?([/\\]|$)/.test(name);

/** A URL inside `dir` for a resolution to start from (the resolver takes a module, not a folder). */
const parentIn = (dir: string): string => pathToFileURL(join(dir, 'noop.js')).href;

/** "The package is not there at all", as opposed to a package that is there and fails to resolve. */
function isMissingPackage(e: unknown, name: string): boolean {
  const error = e as NodeJS.ErrnoException;
  return error.code === 'ERR_MODULE_NOT_FOUND' && error.message.startsWith(`Cannot find package '${name}'`);
}

/**
 * Resolves a plugin's entry file as Node resolves `import` of it: the `exports` map under the
 * `node` and `import` conditions (an ESM-only package has no `require` entry, so CommonJS
 * `require.resolve` never finds it). Node's own `import.meta.resolve` takes no parent directory
 * before Node 22 without a flag, hence the well-kept ponyfill of it.
 */
function resolvePackage(name: string, bases: readonly string[], pathsFrom: string): string {
  if (isPath(name)) return resolvePath(name, resolve(pathsFrom, name));
  for (const base of bases) {
    try {
      return fileURLToPath(resolveImport(name, parentIn(base)));
    } catch (e) {
      if (isMissingPackage(e, name)) continue;
      throw new PluginLoadError(
        `Plugin package ${quoted(name)} is installed but cannot be imported (resolved from ${base}): ${(e as Error).message}`,
      );
    }
  }
  const near = didYouMean(name, discoverPlugins(bases), "'");
  throw new PluginLoadError(
    `Plugin package ${quoted(name)} is not installed where the host looks (from ${bases.join(', ')}).${near} Install it beside the host (\`npm install -g ${quoted(name)}\` for a global host) or in your project (\`npm install ${quoted(name)}\`).`,
  );
}

/** A plugin folder: its own `exports` map (as a self-reference by its name), else its `main` file. */
function resolvePath(name: string, dir: string): string {
  const plugin = `Plugin path ${quoted(name)} (${quoted(dir)})`;
  let pkg: { name?: string; exports?: unknown };
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
  } catch (e) {
    throw new PluginLoadError(
      `${plugin} is not a package: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it has no package.json' : (e as Error).message}.`,
    );
  }
  try {
    if (pkg.exports !== undefined && pkg.name) return fileURLToPath(resolveImport(pkg.name, parentIn(dir)));
    return createRequire(join(dir, 'noop.js')).resolve(dir);
  } catch (e) {
    throw new PluginLoadError(`${plugin} cannot be imported: ${(e as Error).message}`);
  }
}

/** Imports plugin packages by name (or path) and checks that each speaks a contract this host executes. */
export async function importPlugins(
  names: readonly string[],
  bases: readonly string[],
  /** Given: a plugin that cannot be imported is handed to it and left out, instead of failing the load. */
  onUnloadable?: (name: string, error: PluginLoadError) => void,
  /** Where a relative path starts: a config's `plugins` from its file, a flag's from the working directory. */
  pathsFrom = bases[0] ?? process.cwd(),
): Promise<ToolPlugin[]> {
  const plugins: ToolPlugin[] = [];
  for (const name of names) {
    try {
      plugins.push(await importPlugin(name, bases, pathsFrom));
    } catch (e) {
      if (!onUnloadable || !PluginLoadError.isInstance(e)) throw e;
      onUnloadable(name, e);
    }
  }
  return plugins;
}

/** One plugin package, imported and checked to speak a contract this host executes. */
async function importPlugin(name: string, bases: readonly string[], pathsFrom: string): Promise<ToolPlugin> {
  const file = resolvePackage(name, bases, pathsFrom);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    throw new PluginLoadError(`Plugin package ${quoted(name)} failed to load: ${(e as Error).message}`);
  }
  const plugin = [mod.default, mod.plugin].find(isPlugin);
  if (!plugin) {
    throw new PluginLoadError(
      `Package ${quoted(name)} does not export a toolhost plugin (a default export with contractVersion, name, version, toolSet and register).`,
    );
  }
  assertCompatible(plugin);
  return plugin;
}

/**
 * Registers each plugin's tool set in the container, after checking the operator's settings
 * against the plugin's settings schema, and checks what it registered with this host's own
 * core: the contract it states and every declaration, so a broken plugin fails the load
 * naming itself, the tool and the field.
 */
export function registerPlugins(
  container: DependencyContainer,
  plugins: readonly ToolPlugin[],
  config: HostConfig,
): ToolSetDefinition[] {
  const registered: ToolSetDefinition[] = [];
  for (const plugin of plugins) {
    assertCompatible(plugin);
    const toolSetConfig = config.toolSets?.[plugin.toolSet];
    checkSettings(plugin, toolSetConfig?.settings);
    const recorder: PluginContainer = {
      register(token, provider) {
        if (token === TOOL_SET_TOKEN) {
          const set = provider.useValue as ToolSetDefinition;
          checkRegisteredSet(plugin, set);
          registered.push(set);
        }
        container.register(token, provider);
      },
    };
    plugin.register(recorder, pluginOptionsOf(toolSetConfig));
  }
  return registered;
}

function checkSettings(plugin: ToolPlugin, settings: Record<string, unknown> | undefined): void {
  if (settings === undefined) return;
  const key = `toolSets.${plugin.toolSet}.settings`;
  if (!plugin.settingsSchema) throw new ConfigError(`${key}: ${plugin.name} takes no settings.`);
  const problems = checkAgainstSchema(plugin.settingsSchema, settings, key);
  if (problems.length === 0) return;
  const accepted = Object.keys(plugin.settingsSchema.properties ?? {});
  // A setting may have come from its environment variable, which a person then needs named.
  const setting = (at: string) => accepted.find((s) => at === `${key}.${s}` || at.startsWith(`${key}.${s}.`));
  const named = (at: string, s = setting(at)) =>
    s ? `${quoted(at)} (or ${settingEnvName(plugin.toolSet, s)})` : quoted(at);
  const lines = problems.map((p) =>
    p.message === 'is not a known property'
      ? `${quoted(p.at)} is not a setting of ${plugin.toolSet} (accepted: ${accepted.join(', ') || 'none'})`
      : `${named(p.at)} ${p.message}`,
  );
  throw new ConfigError(`Invalid settings for ${plugin.name}: ${lines.join('; ')}.`);
}

function checkRegisteredSet(plugin: ToolPlugin, set: ToolSetDefinition): void {
  const who = `Plugin ${plugin.name}@${plugin.version}`;
  // A plugin written without defineToolSetPlugin states its contract in what it registers too.
  assertCompatible({ name: plugin.name, version: plugin.version, contractVersion: set?.contractVersion });
  if (set.toolSet !== plugin.toolSet) {
    throw new PluginLoadError(`${who} says it provides ${plugin.toolSet} but registered ${set.toolSet}.`);
  }
  const problems = checkToolSet(set);
  if (problems.length > 0) {
    const lines = describeDeclarationProblems(set.toolSet, problems);
    const shown = lines.slice(0, 10).join('; ');
    const more = lines.length > 10 ? ` (and ${lines.length - 10} more)` : '';
    throw new PluginLoadError(`${who} has invalid tool declarations: ${shown}${more}.`);
  }
}
