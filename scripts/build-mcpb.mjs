#!/usr/bin/env node
// Builds the MCP Bundle (.mcpb) for Claude Desktop: the `@toolhost/server` distribution (the host and
// the five plugins) installed with npm into a staging folder beside packaging/mcpb's manifest
// and entry, the manifest's version set to the distribution's, validated and packed with the
// official @anthropic-ai/mcpb tool.
//   node scripts/build-mcpb.mjs <output.mcpb> [--from-clone | package specs…]
// Package specs default to the published distribution at its version. `--from-clone` packs this
// clone's built packages with `pnpm pack` instead (before a release, or to try a change); tests
// pass tarballs of the workspace.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [output, ...rest] = process.argv.slice(2);
const fromClone = rest.includes('--from-clone');
const given = rest.filter((a) => a !== '--from-clone');
if (!output || output.startsWith('-') || (fromClone && given.length > 0)) {
  process.stderr.write('usage: node scripts/build-mcpb.mjs <output.mcpb> [--from-clone | package specs…]\n');
  process.exit(2);
}
const { name, version } = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8'));
const specs = fromClone ? packClone() : given.length > 0 ? given : [`${name}@${version}`];

/** The tarballs of this clone's published packages, as `pnpm pack` writes them for npm (workspace ranges written out). */
function packClone() {
  const packs = mkdtempSync(join(tmpdir(), 'toolhost-packs-'));
  const names = readdirSync(join(root, 'packages')).flatMap((dir) => {
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
      // The plugin authors' kit is no part of the distribution.
      return pkg.private !== true && pkg.name !== '@toolhost/testing' ? [pkg.name] : [];
    } catch {
      return [];
    }
  });
  // One pnpm for them all: started once per package, pnpm cost ten times the packing.
  const out = execFileSync(
    'pnpm',
    [...names.flatMap((n) => ['--filter', n]), 'pack', '--pack-destination', packs, '--json'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return [JSON.parse(out)].flat().map((p) => p.filename);
}

const stage = mkdtempSync(join(tmpdir(), 'toolhost-mcpb-'));
cpSync(join(root, 'packaging/mcpb'), stage, { recursive: true });
const manifest = JSON.parse(readFileSync(join(stage, 'manifest.json'), 'utf8'));
writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
writeFileSync(
  join(stage, 'package.json'),
  JSON.stringify({ name: 'toolhost-mcpb', version, private: true, type: 'module' }),
);
try {
  execFileSync(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs],
    {
      cwd: stage,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    },
  );
} catch {
  // npm has said why above (E404 for a version not published yet); a stack trace adds nothing.
  process.stderr.write(
    `build-mcpb: npm could not install ${specs.join(' ')}.${
      given.length === 0 && !fromClone
        ? ` Before ${name}@${version} is published, bundle this clone's packages: pnpm build && pnpm bundle --from-clone`
        : ''
    }\n`,
  );
  process.exit(1);
}
// The package's command (its exports map names only the library): dist/cli/cli.js beside dist/index.js.
const mcpb = join(
  dirname(createRequire(join(root, 'packages/conformance/package.json')).resolve('@anthropic-ai/mcpb')),
  'cli',
  'cli.js',
);
execFileSync(process.execPath, [mcpb, 'validate', join(stage, 'manifest.json')], { stdio: 'inherit' });
execFileSync(process.execPath, [mcpb, 'pack', stage, resolve(output)], { stdio: 'inherit' });
