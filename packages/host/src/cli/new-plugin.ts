import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quoted } from '@toolhost/engine/internal';
import { pluginTemplates } from './plugin-templates.js';

export interface NewPluginOptions {
  /** Package name; default `toolhost-plugin-<directory name>`. */
  name?: string;
  /** Tool-set name; default from the package name (`toolhost-plugin-widgets` → `WidgetsApi`). */
  toolSet?: string;
  /** The vendor as people name it (`Widgets Inc.`); default the tool set without `Api`. */
  vendor?: string;
  /**
   * Install the host, core and testing kit from the toolhost clone this command runs from
   * (packed with `pnpm pack` into the new package's toolhost-packs/), not from npm: before a
   * release, or to build against unreleased changes.
   */
  fromClone?: boolean;
}

export interface NewPlugin {
  dir: string;
  name: string;
  toolSet: string;
  files: string[];
  /** What to do first where npm cannot install its dependencies: a clone's 0.0.0, without --from-clone. */
  warning?: string;
}

const PLUGIN_NAME = /^(toolhost-plugin-|@[a-z0-9][a-z0-9._-]*\/toolhost-plugin-)[a-z0-9][a-z0-9._-]*$/;
const TOOL_SET_NAME = /^[A-Z][A-Za-z0-9]*$/;
// 0.0.0 is the workspace's version before the first release, never published (docs/releasing.md).
const UNPUBLISHED = `npm has no @toolhost/core, host or testing 0.0.0 (this clone's, not released yet), so npm install would fail: remove the directory and run this command again with --from-clone, which installs this clone's; then npm install && npm test in it.`;

/** The version of a package this host is installed with, for ranges the new package can install. */
function installedVersion(pkg: string): string {
  return (createRequire(import.meta.url)(`${pkg}/package.json`) as { version: string }).version;
}

function toolSetFrom(name: string): string {
  const words = name.replace(/^.*toolhost-plugin-/, '').split(/[^a-z0-9]+/);
  return `${words.map((w) => (w[0] ?? '').toUpperCase() + w.slice(1)).join('')}Api`;
}

/**
 * Writes a plugin package that builds, loads in the host and passes `catalogSuite` as it is:
 * the layout docs/writing-a-plugin.md describes, with one read tool, one write tool
 * whose body is built from its parameters (`body: { kind: 'fields' }`), and their tests.
 * Refuses a directory that is not empty, and names that hosts would not discover.
 */
export function newPlugin(directory: string, options: NewPluginOptions = {}): NewPlugin {
  const dir = resolve(directory);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(`${dir} is not empty: give a new or empty directory for the plugin.`);
  const name = options.name ?? `toolhost-plugin-${basename(dir).replace(/^toolhost-plugin-/, '')}`;
  if (!PLUGIN_NAME.test(name))
    throw new Error(
      `${quoted(name)} is not a plugin package name hosts discover: use toolhost-plugin-<name> or @scope/toolhost-plugin-<name> (lower case), with --name.`,
    );
  const toolSet = options.toolSet ?? toolSetFrom(name);
  if (!TOOL_SET_NAME.test(toolSet))
    throw new Error(
      `--tool-set ${quoted(toolSet)} must start with a capital letter and hold only letters and digits.`,
    );
  const vendor = options.vendor ?? toolSet.replace(/Api$/, '');
  refuseUnprintable(vendor);
  const secret = `${toolSet
    .replace(/Api$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()}_API_KEY`;
  const packs = options.fromClone ? packClone(join(dir, 'toolhost-packs')) : undefined;
  const core = installedVersion('@toolhost/core');
  const files = pluginTemplates({ name, toolSet, vendor, secret }, `^${core}`, packs);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const packed = Object.values(packs ?? {}).map((f) => f.replace(/^file:/, ''));
  const unpublished = !packs && core === '0.0.0' ? UNPUBLISHED : undefined;
  return { dir, name, toolSet, files: [...Object.keys(files), ...packed], warning: unpublished };
}

/**
 * The vendor's name goes into a description, a README line and a string in generated code:
 * one line of printable text (quotes and backslashes are fine: it is written escaped).
 */
function refuseUnprintable(vendor: string): void {
  if (vendor.trim() === '' || vendor.length > 100 || /[\p{Cc}\p{Cs}\u2028\u2029]/u.test(vendor))
    throw new Error(
      `--vendor ${JSON.stringify(vendor.slice(0, 100))} must be one line of printable text, 1-100 characters (e.g. "Widgets Inc.").`,
    );
}

/** The clone this command runs from: the directory above packages/host with the pnpm workspace. */
function cloneRoot(): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
  if (!existsSync(join(root, 'pnpm-workspace.yaml')) || !existsSync(join(root, 'packages', 'core')))
    throw new Error(
      '--from-clone works from a clone of toolhost: run its command, node <clone>/packages/host/dist/cli.js new-plugin …',
    );
  return root;
}

/** The clone's packages a plugin needs, packed as npm would get them: package name → `file:` spec. */
function packClone(into: string): Record<string, string> {
  const root = cloneRoot();
  mkdirSync(into, { recursive: true });
  const manifests = new Map<string, { dependencies?: Record<string, string> }>();
  for (const dir of readdirSync(join(root, 'packages'))) {
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
      manifests.set(pkg.name, pkg);
    } catch {
      // Not a package.
    }
  }
  // The host's own workspace dependencies too (engine, search, …): npm has no release of the
  // clone's versions of them.
  const wanted = ['@toolhost/core', '@toolhost/host', '@toolhost/testing'];
  for (let i = 0; i < wanted.length; i += 1)
    for (const dep of Object.keys(manifests.get(wanted[i]!)?.dependencies ?? {}))
      if (manifests.has(dep) && !wanted.includes(dep)) wanted.push(dep);
  // One pnpm for them all: started once per package, pnpm cost ten times the packing.
  const packed = JSON.parse(
    execFileSync(
      'pnpm',
      [...wanted.flatMap((name) => ['--filter', name]), 'pack', '--pack-destination', into, '--json'],
      {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      },
    ),
  ) as { name: string; filename: string } | { name: string; filename: string }[];
  const files = new Map([packed].flat().map((p) => [p.name, basename(p.filename)]));
  return Object.fromEntries(
    wanted.map((name) => {
      const file = files.get(name);
      if (!file) throw new Error(`pnpm pack wrote no tarball for ${name}`);
      return [name, `file:toolhost-packs/${file}`];
    }),
  );
}
