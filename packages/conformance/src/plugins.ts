import { readFileSync } from 'node:fs';
import { TOOL_SET_TOKEN, type ToolPlugin, type ToolSetDefinition } from '@toolhost/core';
import { ToolRegistry } from '@toolhost/engine';

/** Every plugin package this suite depends on: the suites cover all of them. */
export function pluginPackages(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return Object.keys(pkg.devDependencies).filter((n) => n.startsWith('@toolhost/plugin-'));
}

/** The tool sets a plugin registers, captured through the contract's container shape. */
export function registeredToolSets(plugin: ToolPlugin): ToolSetDefinition[] {
  const sets: ToolSetDefinition[] = [];
  plugin.register({
    register(token, provider) {
      if (token === TOOL_SET_TOKEN) sets.push(provider.useValue as ToolSetDefinition);
    },
  });
  return sets;
}

/** One registry over the tool sets of all the given plugins. */
export function registryOf(plugins: readonly ToolPlugin[]): ToolRegistry {
  return new ToolRegistry(plugins.flatMap(registeredToolSets));
}

/** The registry of every plugin package this suite covers, each imported as the host imports it. */
export async function allPluginsRegistry(): Promise<ToolRegistry> {
  const plugins: ToolPlugin[] = [];
  for (const name of pluginPackages()) plugins.push((await import(name)).default as ToolPlugin);
  return registryOf(plugins);
}

/**
 * Tool-set settings that point every tool set of `registry`, and each of its servers, at
 * `url`, with `extra` settings for each.
 */
export function toolSetsAt<E extends object = object>(
  registry: ToolRegistry,
  url: string,
  extra?: E,
): Record<string, { baseUrl: string; baseUrls: Record<string, string> } & E> {
  const toolSets: Record<string, { baseUrl: string; baseUrls: Record<string, string> } & E> = {};
  for (const t of registry.list()) {
    const servers = Object.fromEntries(Object.keys(t.toolSetDefinition.servers).map((k) => [k, url]));
    toolSets[t.toolSet] = { baseUrl: url, baseUrls: servers, ...(extra as E) };
  }
  return toolSets;
}
