#!/usr/bin/env node
// Builds the MCP Bundle (.mcpb) for Claude Desktop: the `@toolhost/server` distribution (the host and
// the five plugins) installed with npm into a staging folder beside packaging/mcpb's manifest
// and entry, the manifest's version set to the distribution's, validated and packed with the
// official @anthropic-ai/mcpb tool.
//   node scripts/build-mcpb.mjs <output.mcpb> [package specs…]
// Package specs default to the published distribution at its version; tests pass tarballs of
// the workspace instead.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [output, ...given] = process.argv.slice(2);
if (!output) {
  process.stderr.write('usage: node scripts/build-mcpb.mjs <output.mcpb> [package specs…]\n');
  process.exit(2);
}
const { name, version } = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8'));
const specs = given.length > 0 ? given : [`${name}@${version}`];

const stage = mkdtempSync(join(tmpdir(), 'toolhost-mcpb-'));
cpSync(join(root, 'packaging/mcpb'), stage, { recursive: true });
const manifest = JSON.parse(readFileSync(join(stage, 'manifest.json'), 'utf8'));
writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
writeFileSync(
  join(stage, 'package.json'),
  JSON.stringify({ name: 'toolhost-mcpb', version, private: true, type: 'module' }),
);
execFileSync(
  'npm',
  ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs],
  {
    cwd: stage,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  },
);
// The package's command (its exports map names only the library): dist/cli/cli.js beside dist/index.js.
const mcpb = join(
  dirname(createRequire(join(root, 'packages/conformance/package.json')).resolve('@anthropic-ai/mcpb')),
  'cli',
  'cli.js',
);
execFileSync(process.execPath, [mcpb, 'validate', join(stage, 'manifest.json')], { stdio: 'inherit' });
execFileSync(process.execPath, [mcpb, 'pack', stage, resolve(output)], { stdio: 'inherit' });
