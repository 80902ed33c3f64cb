import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONTRACT_VERSION, checkContractVersion, type ToolPlugin } from '@toolhost/core';

export class PluginLoadError extends Error {
  override readonly name = 'PluginLoadError';
}

function isPlugin(value: unknown): value is ToolPlugin {
  const v = value as Partial<ToolPlugin> | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    typeof v.toolSet === 'string' &&
    typeof v.contractVersion === 'string' &&
    typeof v.register === 'function'
  );
}

/** Refuses a plugin built for another contract, naming both versions. */
export function assertCompatible(plugin: ToolPlugin): void {
  const check = checkContractVersion(plugin.contractVersion, CONTRACT_VERSION);
  if (!check.ok) {
    throw new PluginLoadError(
      `Plugin ${plugin.name}@${plugin.version} is incompatible with this host: ${check.reason} (plugin contract ${plugin.contractVersion}, host core contract ${CONTRACT_VERSION}).`,
    );
  }
}

/** Resolves a package from the first base directory that has it (the config's, the cwd, the host's own). */
function resolvePackage(name: string, bases: readonly string[]): string {
  for (const base of bases) {
    try {
      return createRequire(join(base, 'noop.js')).resolve(name);
    } catch {}
  }
  throw new PluginLoadError(
    `Plugin package '${name}' is not installed (looked from ${bases.join(', ')}). Install it next to the host, e.g. \`pnpm add ${name}\`.`,
  );
}

/** Imports plugin packages by name and checks each against the contract. */
export async function loadPlugins(names: readonly string[], bases: readonly string[]): Promise<ToolPlugin[]> {
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
        `Package '${name}' does not export a toolhost plugin (a default export with name, toolSet, contractVersion, register).`,
      );
    }
    assertCompatible(plugin);
    plugins.push(plugin);
  }
  return plugins;
}
