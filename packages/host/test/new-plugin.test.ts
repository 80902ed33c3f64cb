import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { skillEntry } from '@modelcontextprotocol/server/ext/skills';
import type { ToolPlugin } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { cli } from './support.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/**
 * The written package compiled where it stands, against this workspace's core and Node types
 * linked in as an install would put them (no registry: the conformance suite installs it).
 */
async function compile(dir: string): Promise<void> {
  mkdirSync(join(dir, 'node_modules', '@toolhost'), { recursive: true });
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(
    dirname(require.resolve('@toolhost/core/package.json')),
    join(dir, 'node_modules', '@toolhost', 'core'),
  );
  symlinkSync(
    dirname(require.resolve('@types/node/package.json')),
    join(dir, 'node_modules', '@types', 'node'),
  );
  // TypeScript 7 exports no `bin/tsc` subpath: the command is found beside its package.json.
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: dir,
  });
}

describe('toolhost new-plugin --vendor', () => {
  it('writes any printable vendor name as data: the project compiles and the plugin names it exactly', async () => {
    const vendor = `Acme \\'; (globalThis as any).injected = true; // "\${x}" Ünïcode`;
    const dir = join(mkdtempSync(join(tmpdir(), 'toolhost-new-plugin-')), 'toolhost-plugin-acme');
    const made = await cli(['new-plugin', dir, '--vendor', vendor]);
    expect(made.code, made.stderr).toBe(0);
    await compile(dir);
    const built = (await import(pathToFileURL(join(dir, 'dist', 'plugin.js')).href)) as {
      plugin: ToolPlugin;
    };
    expect((globalThis as { injected?: boolean }).injected).toBeUndefined();
    // The tool set as the host receives it when it loads the plugin.
    const registered: { vendor?: string; skill?: string }[] = [];
    built.plugin.register({ register: (_token, provider) => registered.push(provider.useValue as never) });
    expect(registered.map((set) => set.vendor)).toEqual([vendor]);
    // Its skill ships in the package, and the SDK takes it as written (name, frontmatter).
    const skillDir = fileURLToPath(registered[0]!.skill!);
    const manifest = readFileSync(join(skillDir, 'SKILL.md'), 'utf8');
    const entry = await skillEntry('acme-api', { 'SKILL.md': manifest });
    expect(entry.frontmatter.description).toContain(vendor);
    expect(manifest).toContain('`AcmeApi_GetItem`');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { description: string };
    expect(pkg.description).toContain(vendor);
  }, 60_000);

  it('refuses a vendor name that is not one line of printable text, writing nothing', async () => {
    for (const vendor of ['Acme\nInc', 'Acme\u2028Inc', ' ', 'x'.repeat(101)]) {
      const dir = join(mkdtempSync(join(tmpdir(), 'toolhost-new-plugin-')), 'toolhost-plugin-acme');
      const made = await cli(['new-plugin', dir, '--vendor', vendor]);
      expect(made.code).not.toBe(0);
      expect(made.stderr).toMatch(/--vendor [\s\S]* must be one line of printable text/);
    }
  });
});

describe('toolhost new-plugin before a release', () => {
  it('warns that npm cannot install the clone’s 0.0.0 packages, and names --from-clone', async () => {
    // It said only "Next: npm install", which then failed with E404 for @toolhost/core@^0.0.0.
    const core = JSON.parse(readFileSync(require.resolve('@toolhost/core/package.json'), 'utf8'));
    const dir = join(mkdtempSync(join(tmpdir(), 'toolhost-new-plugin-')), 'toolhost-plugin-acme');
    const made = await cli(['new-plugin', dir]);
    expect(made.code, made.stderr).toBe(0);
    if (core.version !== '0.0.0') return expect(made.stdout).toContain('Next: cd ');
    // The next step is the one that works, not npm install with a warning after it that it fails.
    expect(made.stdout).toMatch(
      /\nNext: npm has no @toolhost\/core, host or testing 0\.0\.0 .*run this command again with --from-clone.*\n$/,
    );
    expect(made.stdout).not.toContain('Next: cd');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.devDependencies['@toolhost/core']).toBe('^0.0.0');
  });
});

describe('toolhost new-plugin README', () => {
  it("links to the plugin guide in this repository, which the host's README does not hold", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'toolhost-new-plugin-')), 'toolhost-plugin-acme');
    const made = await cli(['new-plugin', dir]);
    expect(made.code, made.stderr).toBe(0);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const guide = /\]\(https:\/\/github\.com\/toolhost\/toolhost\/blob\/main\/([^)]+)\)/.exec(readme)?.[1];
    expect(guide).toBe('docs/writing-a-plugin.md');
    expect(existsSync(fileURLToPath(new URL(`../../../${guide}`, import.meta.url)))).toBe(true);
  });
});
