import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { npm, root } from './pack-workspace.js';

// `toolhost new-plugin --from-clone` as a plugin author runs it before a release: the package it
// writes installs this workspace's packages (packed as published), then builds, tests and loads on its own.
const hostCli = join(root, 'packages', 'host', 'dist', 'cli.js');
let plugin: string;
/** package.json as written, before the install names the tarballs in it. */
let written: Record<string, unknown>;

beforeAll(() => {
  // Before a release, as docs/writing-a-plugin.md says: the clone's packages, packed into the plugin.
  plugin = join(mkdtempSync(join(tmpdir(), 'toolhost-author-')), 'toolhost-plugin-widgets');
  execFileSync(
    process.execPath,
    [hostCli, 'new-plugin', plugin, '--vendor', 'Widgets Inc.', '--from-clone'],
    {
      encoding: 'utf8',
    },
  );
  written = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8')) as Record<string, unknown>;
  npm(['install', '--loglevel=error'], plugin);
}, 300_000);

describe('a plugin written by toolhost new-plugin', () => {
  it('is named and shaped for discovery, with an import-only exports map and an installable peer range', () => {
    const pkg = written;
    expect(pkg).toMatchObject({
      name: 'toolhost-plugin-widgets',
      type: 'module',
      keywords: ['toolhost-plugin'],
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    });
    const core = JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect((pkg.peerDependencies as Record<string, string>)['@toolhost/core']).toBe(`^${core.version}`);
    expect(pkg.devDependencies).toMatchObject({
      '@toolhost/core': `file:toolhost-packs/toolhost-core-${core.version}.tgz`,
      '@toolhost/host': expect.stringMatching(/^file:toolhost-packs\/toolhost-host-.*\.tgz$/),
      '@toolhost/testing': expect.stringMatching(/^file:toolhost-packs\/toolhost-testing-.*\.tgz$/),
    });
  });

  it('type-checks, builds, and passes its catalog tests in its own directory', () => {
    npm(['run', 'typecheck'], plugin);
    const out = npm(['test'], plugin);
    expect(stripVTControlCharacters(out)).toMatch(/Tests\s+6 passed/);
  }, 120_000);

  it('loads in the host by its name, from its own directory', () => {
    const listed = execFileSync(
      join(plugin, 'node_modules', '.bin', 'toolhost'),
      ['--plugins', 'toolhost-plugin-widgets', 'list'],
      { cwd: plugin, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
    );
    expect(listed).toContain('WidgetsApi.ListItems (read-only)');
    expect(listed).toMatch(/^3 tools$/m);
  }, 60_000);

  it('refuses to write over a directory that is not empty', () => {
    const r = (() => {
      try {
        execFileSync(process.execPath, [hostCli, 'new-plugin', plugin], { encoding: 'utf8', stdio: 'pipe' });
        return '';
      } catch (e) {
        return (e as { stderr: string }).stderr;
      }
    })();
    expect(r).toContain('is not empty');
  });
});
