import { CONTRACT_VERSION } from '@toolhost/core';

/** The names a new plugin is written with. */
export interface Names {
  name: string;
  toolSet: string;
  vendor: string;
  secret: string;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Every file of a new plugin package, by path: its manifest and build settings, its
 * declarations, its skill, its tests and its README. `core` is the range of @toolhost/core it
 * installs; `packs`, the clone's packed packages, when it installs from a clone.
 */
export function pluginTemplates(
  names: Names,
  core: string,
  packs?: Record<string, string>,
): Record<string, string> {
  // The skill's folder is named as the skill (lowercase words and hyphens), as the format asks.
  const skill = names.toolSet.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return {
    'package.json': packageJson(names, core, packs),
    ...buildFiles(),
    'src/index.ts': INDEX_SOURCE,
    'src/plugin.ts': pluginSource(names, skill),
    [`skill/${skill}/SKILL.md`]: skillFile(names, skill),
    'test/catalog.test.ts': catalogTest(names),
    'README.md': readme(names),
  };
}

/** The manifest: discoverable by hosts (its keyword), built before its tests. */
function packageJson({ name, toolSet, vendor }: Names, core: string, packs?: Record<string, string>): string {
  return json({
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
      typescript: '~7.0.2',
      vitest: '^4.1.0',
    },
  });
}

/** TypeScript and vitest settings, and what git leaves out. */
function buildFiles(): Record<string, string> {
  return {
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
  };
}

const INDEX_SOURCE = `import { plugin } from './plugin.js';

export { plugin };
// The host loads the default export.
export default plugin;
`;

/** The declarations: one read tool, one by id, one write tool whose body is built from its parameters. */
function pluginSource({ toolSet, vendor, secret }: Names, skill: string): string {
  const contract = CONTRACT_VERSION;
  return `import { createRequire } from 'node:module';
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
`;
}

/** The skill agents read before a multi-step task, to be written from the vendor's documentation. */
function skillFile({ toolSet, vendor }: Names, skill: string): string {
  return `---
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
`;
}

/** The catalog tests: the real host loads the package, a loopback upstream records each request. */
function catalogTest({ name, toolSet, secret }: Names): string {
  return `import { catalogSuite } from '@toolhost/testing';
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
`;
}

function readme({ name, toolSet, vendor, secret }: Names): string {
  return `# ${name}

A [toolhost](https://www.npmjs.com/package/@toolhost/host) plugin: the \`${toolSet}\` tool set,
tools over the ${vendor} API.

\`\`\`sh
npm install
npm test            # builds, then runs the catalog tests against the real host
npx toolhost --plugins ${name} list
\`\`\`

Set \`${secret}\` for the host, and \`toolSets.${toolSet}.baseUrl\` to call another server.
Declarations are in \`src/plugin.ts\`; [Writing a plugin](https://github.com/toolhost/toolhost/blob/main/docs/writing-a-plugin.md)
describes every field. Install the package beside the host (\`npm install -g ${name}\` next to
a global host) so that the host discovers it.
`;
}
