import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { packedWorkspace, publishedPackages, root, tsc, writeProgram } from './pack-workspace.js';

// The packages as consumers get them: packed with pnpm (workspace ranges written out), then
// unpacked into a project that has nothing else installed. Installed with npm, from a registry
// the same tarballs are published to, in local-registry.test.ts.
// The library packages; @toolhost/server, a command with dependencies only, is checked on its own below.
const PUBLISHED = publishedPackages().filter((p) => p !== 'server');
const PLUGINS = PUBLISHED.filter((p) => p.startsWith('plugin-'));

let tarballs: Record<string, string>;
let consumer: string;

function unpack(tarball: string, into: string): void {
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

beforeAll(async () => {
  tarballs = await packedWorkspace();
  // A consumer with the contract and the plugins only: no ajv, axios, tsyringe or @types/node.
  consumer = mkdtempSync(join(tmpdir(), 'toolhost-consumer-'));
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
  for (const pkg of ['core', ...PLUGINS])
    unpack(tarballs[pkg]!, join(consumer, 'node_modules', '@toolhost', pkg));
}, 300_000);

describe('published packages', () => {
  it('ship their built entries and sources, no tests, and declaration maps whose sources are there', () => {
    for (const pkg of PUBLISHED) {
      const dir = mkdtempSync(join(tmpdir(), `toolhost-unpacked-${pkg}-`));
      unpack(tarballs[pkg]!, dir);
      const files = filesUnder(dir);
      expect(files, pkg).toContain('dist/index.js');
      expect(files, pkg).toContain('dist/index.d.ts');
      // What a user of a published package reads first, and the terms they may use it under.
      expect(files, pkg).toContain('README.md');
      expect(readFileSync(join(dir, 'LICENSE'), 'utf8'), pkg).toMatch(
        /^MIT License\n\nCopyright \(c\) \d{4} toolhost contributors\n/,
      );
      expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).license, pkg).toBe('MIT');
      expect(
        files.filter((f) => /\.test\./.test(f)),
        pkg,
      ).toEqual([]);
      for (const map of files.filter((f) => f.endsWith('.d.ts.map'))) {
        const { sources } = JSON.parse(readFileSync(join(dir, map), 'utf8')) as { sources: string[] };
        for (const source of sources)
          expect(existsSync(resolve(dir, dirname(map), source)), `${pkg} ${map} → ${source}`).toBe(true);
      }
    }
  });

  it('the @toolhost/server distribution ships its command and depends on the host and every plugin, at their versions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-unpacked-server-'));
    unpack(tarballs.server!, dir);
    expect(filesUnder(dir).sort()).toEqual(['LICENSE', 'README.md', 'bin/toolhost.js', 'package.json']);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ toolhost: './bin/toolhost.js' });
    const versionOf = (p: string) =>
      (JSON.parse(readFileSync(join(root, 'packages', p, 'package.json'), 'utf8')) as { version: string })
        .version;
    expect(pkg.dependencies).toEqual(
      Object.fromEntries(['core', 'host', ...PLUGINS].map((p) => [`@toolhost/${p}`, `^${versionOf(p)}`])),
    );
  });

  it('plugins load with the contract alone: no engine dependency is installed', async () => {
    for (const pkg of PLUGINS) {
      const entry = join(consumer, 'node_modules', '@toolhost', pkg, 'dist', 'index.js');
      const mod = (await import(pathToFileURL(entry).href)) as {
        default: { contractVersion: string; toolSet: string };
      };
      expect(mod.default.contractVersion, pkg).toMatch(/^2\.\d+$/);
    }
    expect(existsSync(join(consumer, 'node_modules', 'ajv'))).toBe(false);
    expect(existsSync(join(consumer, 'node_modules', 'axios'))).toBe(false);
  });

  it('the contract and the plugins type-check in a consumer without @types/node', () => {
    const source = [
      "import { defineToolSetPlugin, providerAuth, type ToolDeclaration, type ToolPlugin } from '@toolhost/core';",
      ...PLUGINS.map((p, i) => `import plugin${i}, * as all${i} from '@toolhost/${p}';`),
      "const tool: ToolDeclaration = { name: 'Ping', description: 'Ping.', method: 'GET', path: '/ping', auth: providerAuth('p', 's') };",
      "export const mine: ToolPlugin = defineToolSetPlugin({ contractVersion: '2.0', name: 'mine', version: '1.0.0', toolSet: 'MineApi', servers: { default: 'https://x' }, tools: [tool] });",
      `export const theirs: ToolPlugin[] = [${PLUGINS.map((_, i) => `plugin${i}`).join(', ')}];`,
      `export const modules = [${PLUGINS.map((_, i) => `all${i}`).join(', ')}];`,
    ].join('\n');
    writeProgram(consumer, 'consumer.ts', source, { types: [], lib: ['ES2023'] });
    expect(tsc(consumer)).toBe('');
  });
});
