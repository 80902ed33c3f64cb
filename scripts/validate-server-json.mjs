#!/usr/bin/env node
// Checks server.json as the official MCP Registry will when it is published: against the
// registry's schema (the vendored copy of the version its `$schema` names) and the registry's
// rules beyond the schema (scripts/mcp-registry.mjs), with the npm packages it lists as this
// workspace will publish them and the GitHub owner of the root package.json's repository.
// With --compare-live it also fetches the schema from its URL (the release workflow, where the
// network is there), or from the URL given, and fails when the vendored copy differs from it.
//   node scripts/validate-server-json.mjs [--compare-live[=URL]]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import {
  githubRepository,
  registryProblems,
  schemaProblems,
  VENDORED_SCHEMA_PATH,
  vendoredSchema,
} from './mcp-registry.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const readJson = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'));
const server = readJson('server.json');
const schema = vendoredSchema();
const problems = [];

if (schema.$id !== server.$schema)
  problems.push(
    `server.json's $schema is ${server.$schema}, but the vendored schema (${VENDORED_SCHEMA_PATH}) is ${schema.$id}: vendor that version (see the NOTICE beside it)`,
  );
const compare = process.argv.find((a) => a === '--compare-live' || a.startsWith('--compare-live='));
if (compare) {
  const url = compare.includes('=') ? compare.slice(compare.indexOf('=') + 1) : schema.$id;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const live = await response.json();
  if (!isDeepStrictEqual(live, schema))
    problems.push(
      `the schema published at ${url} differs from the vendored copy: replace ${VENDORED_SCHEMA_PATH} with it and review the changes`,
    );
  problems.push(...schemaProblems(server, live).map((p) => `${p} (live schema)`));
}

const published = new Map();
for (const dir of readdirSync(join(root, 'packages'))) {
  try {
    const pkg = readJson(`packages/${dir}/package.json`);
    if (!pkg.private) published.set(pkg.name, pkg);
  } catch {}
}
const { owner: githubOwner } = githubRepository(readJson('package.json').repository);
problems.push(
  ...schemaProblems(server, schema),
  ...registryProblems(server, { npmPackage: (name) => published.get(name), githubOwner }),
);

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`server.json is valid against ${schema.$id} and the registry's rules.`);
