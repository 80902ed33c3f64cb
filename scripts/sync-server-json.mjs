#!/usr/bin/env node
// Derives the MCP Registry entry and the packages' publishing metadata from one source of
// truth, the root package.json's `repository` (a GitHub repository):
// - server.json's `name` is `io.github.<owner>/<repo>`, the namespace the registry grants to
//   whoever proves, with GitHub, to be <owner>; its `repository` is that repository, and its npm
//   package and version are the distribution's (packages/server), which run after
//   `changeset version` keeps current;
// - every package.json with an `mcpName` names that server (the registry checks the published
//   package's `mcpName` against server.json's name);
// - every published package's `repository` is that repository with the package's folder (npm's
//   provenance checks the URL against the repository whose workflow published it).
// A fork changes the root `repository` and runs this. With --check it changes nothing and
// exits 1 naming each file that disagrees.
//   node scripts/sync-server-json.mjs [--check] [workspace-dir]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { githubRepository } from './mcp-registry.mjs';

const args = process.argv.slice(2);
const check = args.includes('--check');
const root = resolve(args.find((a) => a !== '--check') ?? '.');
const DISTRIBUTION = 'packages/server';

const readJson = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'));
const stale = [];
function writeJson(file, value) {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (readFileSync(join(root, file), 'utf8') === text) return;
  stale.push(file);
  if (!check) writeFileSync(join(root, file), text);
}

/** `obj` with `key` set to `value`: in its place if there, else right after `after` (key order is what people read). */
function withKey(obj, key, value, after) {
  if (key in obj) return { ...obj, [key]: value };
  const entries = Object.entries(obj);
  const at = entries.findIndex(([k]) => k === after) + 1 || entries.length;
  return Object.fromEntries([...entries.slice(0, at), [key, value], ...entries.slice(at)]);
}

const { owner, repo } = githubRepository(readJson('package.json').repository);
const serverName = `io.github.${owner}/${repo}`;
const gitUrl = `git+https://github.com/${owner}/${repo}.git`;

const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `packages/${e.name}`);
for (const dir of packages) {
  const file = `${dir}/package.json`;
  let pkg;
  try {
    pkg = readJson(file);
  } catch {
    continue;
  }
  if (pkg.private) continue;
  let next = withKey(pkg, 'repository', { type: 'git', url: gitUrl, directory: dir }, 'license');
  if (pkg.mcpName !== undefined || dir === DISTRIBUTION)
    next = withKey(next, 'mcpName', serverName, 'description');
  writeJson(file, next);
}

const distribution = readJson(`${DISTRIBUTION}/package.json`);
const server = readJson('server.json');
const repository = { url: `https://github.com/${owner}/${repo}`, source: 'github', subfolder: DISTRIBUTION };
writeJson('server.json', {
  ...withKey(server, 'repository', repository, 'description'),
  name: serverName,
  version: distribution.version,
  packages: server.packages.map((entry) =>
    entry.registryType === 'npm'
      ? { ...entry, identifier: distribution.name, version: distribution.version }
      : entry,
  ),
});

if (check && stale.length > 0) {
  console.error(
    `Not derived from the root package.json's repository (${owner}/${repo}): ${stale.join(', ')}. Run node scripts/sync-server-json.mjs.`,
  );
  process.exit(1);
}
