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
