import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PLUGIN_KEYWORD = 'toolhost-plugin';

// Plugins follow a naming convention (like eslint-plugin-*), so discovery reads a handful of
// package.json files instead of every installed package.
const NAME_PATTERN = /^(@toolhost\/plugin-|toolhost-plugin-|@[^/]+\/toolhost-plugin-)/;

function nodeModulesDirs(start: string): string[] {
  const dirs: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    const nm = join(dir, 'node_modules');
    if (existsSync(nm)) dirs.push(nm);
    if (dirname(dir) === dir) return dirs;
  }
}

function candidates(nm: string): string[] {
  const names: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(nm);
  } catch {
    return names;
  }
  for (const entry of entries) {
    if (entry.startsWith('@')) {
      let scoped: string[] = [];
      try {
        scoped = readdirSync(join(nm, entry));
      } catch {}
      for (const s of scoped) names.push(`${entry}/${s}`);
    } else names.push(entry);
  }
  return names.filter((n) => NAME_PATTERN.test(n));
}

/** This package's own directory: plugins installed beside the host (a global install, `npx`) are found from it. */
export const HOST_PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where the host looks for plugins, in order: beside the config file, in the working
 * directory, beside the host package itself, then in the directories given, each with its
 * parents' node_modules.
 */
export function pluginSearchBases(
  configDir: string | undefined,
  cwd: string,
  more: readonly string[] = [],
): string[] {
  return [...new Set([...(configDir ? [configDir] : []), cwd, HOST_PACKAGE_DIR, ...more])];
}

/**
 * The real directory of the script that was run (`process.argv[1]`), when it is not the host's
 * own command (whose plugins are found beside the host package already). A distribution that
 * depends on the host and on plugins (`@toolhost/server`) runs the host's command from its own
 * bin: its plugins are installed beside it, which is not beside the host under a package
 * manager that does not hoist (pnpm), so the CLI looks there too. The real path, since package
 * managers link bins and packages.
 */
export function commandDirectory(script: string | undefined = process.argv[1]): string | undefined {
  if (!script) return undefined;
  let dir: string;
  try {
    dir = dirname(realpathSync(script));
  } catch {
    return undefined;
  }
  return `${dir}${sep}`.startsWith(`${realpathSync(HOST_PACKAGE_DIR)}${sep}`) ? undefined : dir;
}

/** The node_modules directories discovery reads from those bases (for messages that say where it looked). */
export function searchedDirectories(bases: readonly string[]): string[] {
  return [...new Set(bases.flatMap(nodeModulesDirs))];
}

/** The package.json in `dir` where it is a toolhost plugin's (its keyword names it one), else undefined. */
export function pluginManifestIn(dir: string): { name?: unknown } | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name?: unknown;
      keywords?: string[];
    };
    return pkg.keywords?.includes(PLUGIN_KEYWORD) ? pkg : undefined;
  } catch {
    return undefined;
  }
}

/** Installed toolhost plugins visible from the given directories, by package name. */
export function discoverPlugins(bases: readonly string[]): string[] {
  const found = new Set<string>();
  for (const base of bases) {
    for (const nm of nodeModulesDirs(base)) {
      for (const name of candidates(nm)) {
        if (!found.has(name) && pluginManifestIn(join(nm, name))) found.add(name);
      }
    }
  }
  return [...found].sort();
}
