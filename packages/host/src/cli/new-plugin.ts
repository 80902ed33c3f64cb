import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_VERSION } from '@toolhost/core';

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
}

const PLUGIN_NAME = /^(toolhost-plugin-|@[a-z0-9][a-z0-9._-]*\/toolhost-plugin-)[a-z0-9][a-z0-9._-]*$/;
const TOOL_SET_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** The version of a package this host is installed with, for ranges the new package can install. */
function installedVersion(pkg: string): string {
  return (createRequire(import.meta.url)(`${pkg}/package.json`) as { version: string }).version;
}

function toolSetFrom(name: string): string {
  const words = name
    .replace(/^.*toolhost-plugin-/, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return `${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Api`;
}

/**
 * Writes a plugin package that builds, loads in the host and passes `catalogSuite` as it is:
 * the layout of "Writing a plugin" in the host's README, with one read tool, one write tool
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
      `'${name}' is not a plugin package name hosts discover: use toolhost-plugin-<name> or @scope/toolhost-plugin-<name> (lower case), with --name.`,
    );
  const toolSet = options.toolSet ?? toolSetFrom(name);
  if (!TOOL_SET_NAME.test(toolSet))
    throw new Error(
      `--tool-set '${toolSet}' must start with a capital letter and hold only letters and digits.`,
    );
  const vendor = options.vendor ?? toolSet.replace(/Api$/, '');
  refuseUnprintable(vendor);
  const secret = `${toolSet
    .replace(/Api$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()}_API_KEY`;
  const packs = options.fromClone ? packClone(join(dir, 'toolhost-packs')) : undefined;
  const files = templates({ name, toolSet, vendor, secret }, packs);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const packed = Object.values(packs ?? {}).map((f) => f.replace(/^file:/, ''));
  return { dir, name, toolSet, files: [...Object.keys(files), ...packed] };
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

interface Names {
  name: string;
  toolSet: string;
  vendor: string;
  secret: string;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
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
  const dirs = new Map<string, string>();
  const manifests = new Map<string, { dependencies?: Record<string, string> }>();
  for (const dir of readdirSync(join(root, 'packages'))) {
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
      dirs.set(pkg.name, dir);
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
      if (dirs.has(dep) && !wanted.includes(dep)) wanted.push(dep);
  const out: Record<string, string> = {};
  for (const name of wanted) {
    const file = execFileSync('pnpm', ['pack', '--pack-destination', into], {
      cwd: join(root, 'packages', dirs.get(name)!),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .at(-1)!;
    out[name] = `file:toolhost-packs/${basename(file)}`;
  }
  return out;
}

function templates(
  { name, toolSet, vendor, secret }: Names,
  packs?: Record<string, string>,
): Record<string, string> {
  const core = `^${installedVersion('@toolhost/core')}`;
  const contract = CONTRACT_VERSION;
  // The skill's folder is named as the skill (lowercase words and hyphens), as the format asks.
  const skill = toolSet.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return {
    'package.json': json({
      name,
      version: '0.1.0',
      description: `toolhost plugin: ${toolSet}, tools over the ${vendor} API.`,
      license: 'MIT',
      type: 'module',
      sideEffects: false,
      // The keyword is how hosts discover an installed plugin.
      keywords: ['toolhost-plugin'],
      exports: {
        '.': { types: './dist/index.d.ts', import: './dist/index.js' },
        './package.json': './package.json',
      },
      files: ['dist', 'skill'],
      engines: { node: '>=22' },
      scripts: {
        build: 'tsc -p tsconfig.build.json',
        typecheck: 'tsc -p tsconfig.json --noEmit',
        // The host loads the built package: build before the tests.
        test: 'tsc -p tsconfig.build.json && vitest run',
      },
      peerDependencies: { '@toolhost/core': core },
      devDependencies: {
        '@toolhost/core': core,
        '@toolhost/host': 'latest',
        '@toolhost/testing': 'latest',
        ...packs,
        '@types/node': '^22.0.0',
        typescript: '~5.9.3',
        vitest: '^4.1.0',
      },
    }),
    'tsconfig.json': json({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023'],
        types: ['node'],
        strict: true,
        declaration: true,
        declarationMap: true,
        sourceMap: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
        outDir: 'dist',
        rootDir: '.',
      },
      include: ['src', 'test'],
    }),
    'tsconfig.build.json': json({
      extends: './tsconfig.json',
      compilerOptions: { rootDir: 'src' },
      include: ['src'],
    }),
    'vitest.config.ts': `import { defineConfig } from 'vitest/config';

// The suite spawns the real host: give its start-up time.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 20_000, hookTimeout: 90_000 },
});
`,
    '.gitignore': 'node_modules/\ndist/\n',
    'src/index.ts': `import { plugin } from './plugin.js';

export { plugin };
// The host loads the default export.
export default plugin;
`,
    'src/plugin.ts': `import { createRequire } from 'node:module';
import { bodyParam, defineToolSetPlugin, pathParam, queryParam, secretAuth, type ToolDeclaration, type ToolPlugin } from '@toolhost/core';

const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

/** The API takes a key as a bearer token; the host reads it from ${secret} (environment or config \`secrets\`). */
const auth = secretAuth('${secret}', 'bearer');

/** One declaration per endpoint: data the host's engine executes, no request code. */
export const tools: ToolDeclaration[] = [
  {
    name: 'ListItems',
    description: 'List the items, optionally only those with a tag.',
    method: 'GET',
    path: '/items',
    auth,
    params: [queryParam('tag', 'Only items with this tag.', { type: 'string' })],
  },
  {
    name: 'GetItem',
    description: 'Get one item by its id.',
    method: 'GET',
    path: '/items/{itemId}',
    auth,
    params: [pathParam('item_id', 'itemId', 'The item id.')],
  },
  {
    name: 'CreateItem',
    description: 'Create an item with a title and optional tags.',
    method: 'POST',
    path: '/items',
    auth,
    // The JSON body is built from the parameters declared \`in: 'body'\`.
    body: { kind: 'fields' },
    params: [
      bodyParam('title', 'The title.', { type: 'string', minLength: 1 }, { required: true }),
      bodyParam('tags', 'Tags to file it under.', { type: 'array', items: { type: 'string' } }),
    ],
  },
];

export const plugin: ToolPlugin = defineToolSetPlugin({
  // The contract these declarations are written against: hosts whose core has the same major
  // and this minor or a newer one run the plugin.
  contractVersion: '${contract}',
  name: pkg.name,
  version: pkg.version,
  toolSet: '${toolSet}',
  vendor: ${JSON.stringify(vendor)},
  // Operators point this elsewhere with toolSets.${toolSet}.baseUrl (the tests do).
  servers: { default: 'https://api.example.com/v1' },
  tools,
  // The workflows agents should know, served as an MCP skill (skill://${skill}/SKILL.md).
  skill: new URL('../skill/${skill}/', import.meta.url),
});
`,
    [`skill/${skill}/SKILL.md`]: `---
name: ${skill}
description: ${JSON.stringify(`How to work with the ${vendor} API through the ${toolSet} tools: find an item, read it, create one. Read before a multi-step ${toolSet} task.`)}
---

# ${toolSet}

Write here, in your own words from the vendor's documentation, what an agent must know that
no single tool says: the order of the steps, where each id comes from, paging, limits and
pitfalls. Name each step's exact tool.

## Find, then read

1. \`${toolSet}_ListItems\`, optionally with \`tag\` — the items and their ids.
2. \`${toolSet}_GetItem\` with \`item_id\` from step 1 — one item.

## Create

\`${toolSet}_CreateItem\` with \`title\` (required) and \`tags\`.
`,
    'test/catalog.test.ts': `import { catalogSuite } from '@toolhost/testing';
import { describe } from 'vitest';

// The real host (spawned over stdio) loads this package by its name, a loopback upstream
// records every request, and each table row is one test.
const api = catalogSuite({
  plugin: '${name}',
  toolSet: '${toolSet}',
  env: { ${secret}: 'test-key-123' },
  authorization: 'Bearer test-key-123',
});

describe('${toolSet}', () => {
  api.itListsTools('lists its tools, with the parameters each requires', {
    exactly: ['ListItems', 'GetItem', 'CreateItem'],
    required: { ListItems: [], GetItem: ['item_id'], CreateItem: ['title'] },
    hints: { ListItems: { readOnlyHint: true }, CreateItem: { readOnlyHint: false } },
  });

  api.itSendsRequests([
    { tool: 'ListItems', args: { tag: 'q3' }, method: 'GET', path: '/items', query: [['tag', 'q3']] },
    { tool: 'GetItem', args: { item_id: 'i_1' }, method: 'GET', path: '/items/i_1' },
    {
      tool: 'CreateItem',
      args: { title: 'Plan', tags: ['q3'] },
      method: 'POST',
      path: '/items',
      body: { title: 'Plan', tags: ['q3'] },
    },
  ]);

  api.itRejectsBadInput([
    ['no item id', 'GetItem', {}, /item_id/, 'item_id'],
    ['an empty title', 'CreateItem', { title: '' }, /title/, 'title'],
  ]);
});
`,
    'README.md': `# ${name}

A [toolhost](https://www.npmjs.com/package/@toolhost/host) plugin: the \`${toolSet}\` tool set,
tools over the ${vendor} API.

\`\`\`sh
npm install
npm test            # builds, then runs the catalog tests against the real host
npx toolhost --plugins ${name} list
\`\`\`

Set \`${secret}\` for the host, and \`toolSets.${toolSet}.baseUrl\` to call another server.
Declarations are in \`src/plugin.ts\`; the host's README ("Writing a plugin") describes every
field. Install the package beside the host (\`npm install -g ${name}\` next to a global host) so
that the host discovers it.
`,
  };
}
