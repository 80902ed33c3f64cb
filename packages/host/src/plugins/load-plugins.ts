import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CONTRACT_VERSION,
  checkContractVersion,
  type PluginContainer,
  TOOL_SET_TOKEN,
  type ToolPlugin,
  type ToolSetDefinition,
} from '@toolhost/core';
import { checkAgainstSchema, checkToolSet, describeDeclarationProblems } from '@toolhost/engine';
import type { DependencyContainer } from 'tsyringe';
import { type HostConfig, pluginOptionsOf } from '../config/host-config.js';
import { ConfigError } from '../config/load-config.js';
import { HostError, hasCode } from '../host-error.js';

export class PluginLoadError extends HostError {
  readonly code = 'plugin_load_failed' as const;
  static override isInstance = hasCode<PluginLoadError>('plugin_load_failed');
  override readonly name = 'PluginLoadError';
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

/** A plugin named by path (`./my-plugin`, `/opt/plugins/x`) rather than by package name. */
function isPath(name: string): boolean {
  return isAbsolute(name) || name.startsWith('./') || name.startsWith('../');
}

/** Resolves a package from the first directory that has it (config's, the working directory, the host's own). */
function resolvePackage(name: string, bases: readonly string[]): string {
  if (isPath(name)) {
    const dir = resolve(bases[0] ?? process.cwd(), name);
    try {
      return createRequire(join(dir, 'noop.js')).resolve(dir);
    } catch {
      throw new PluginLoadError(`Plugin path '${name}' (${dir}) is not a package with a main entry.`);
    }
  }
  for (const base of bases) {
    try {
      return createRequire(join(base, 'noop.js')).resolve(name);
    } catch {}
  }
  throw new PluginLoadError(
    `Plugin package '${name}' is not installed where the host looks (from ${bases.join(', ')}). Install it beside the host (\`npm install -g ${name}\` for a global host) or in your project (\`npm install ${name}\`).`,
  );
}

/** Imports plugin packages by name (or path) and checks that each speaks a contract this host executes. */
export async function importPlugins(
  names: readonly string[],
  bases: readonly string[],
): Promise<ToolPlugin[]> {
  const plugins: ToolPlugin[] = [];
  for (const name of names) {
    const file = resolvePackage(name, bases);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (e) {
      throw new PluginLoadError(`Plugin package '${name}' failed to load: ${(e as Error).message}`);
    }
    const plugin = [mod.default, mod.plugin].find(isPlugin);
    if (!plugin) {
      throw new PluginLoadError(
        `Package '${name}' does not export a toolhost plugin (a default export with contractVersion, name, version, toolSet and register).`,
      );
    }
    assertCompatible(plugin);
    plugins.push(plugin);
  }
  return plugins;
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
  if (!plugin.settingsSchema) {
    throw new ConfigError(`${key}: ${plugin.name} takes no settings.`);
  }
  const problems = checkAgainstSchema(plugin.settingsSchema, settings, key);
  if (problems.length === 0) return;
  const accepted = Object.keys(plugin.settingsSchema.properties ?? {});
  const lines = problems.map((p) =>
    p.message === 'is not a known property'
      ? `${p.at} is not a setting of ${plugin.toolSet} (accepted: ${accepted.join(', ') || 'none'})`
      : `${p.at} ${p.message}`,
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
