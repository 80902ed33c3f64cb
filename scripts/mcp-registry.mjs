// What the official MCP Registry checks of a server.json before it accepts it: the JSON Schema
// its `$schema` names (vendored, see packages/conformance/official/mcp-registry/NOTICE.md), and
// the rules its publish endpoint applies beyond the schema, as the registry documents them
// (server-json/official-registry-requirements, publishing authentication) and its validators
// apply them. Used by scripts/validate-server-json.mjs (the release workflow) and by the
// conformance test that runs in CI.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The vendored copy of the registry's schema, as published at its `$id`. */
export const VENDORED_SCHEMA_PATH = fileURLToPath(
  new URL('../packages/conformance/official/mcp-registry/server.schema.json', import.meta.url),
);

export function vendoredSchema() {
  return JSON.parse(readFileSync(VENDORED_SCHEMA_PATH, 'utf8'));
}

// ajv and its formats are the conformance package's (dev) dependencies.
const require = createRequire(new URL('../packages/conformance/package.json', import.meta.url));

/** Where `server` breaks `schema`, one line each (empty when it is valid). */
export function schemaProblems(server, schema) {
  // The schema's own draft decides the validator (2025-12-11 is draft-07; 2020-12 needs ajv's
  // 2020 build). Not strict: the schema carries OpenAPI's `example` annotations, which ajv's
  // strict mode refuses as unknown keywords.
  const draft2020 = String(schema.$schema ?? '').includes('2020-12');
  const { default: Ajv } = draft2020 ? require('ajv/dist/2020') : { default: require('ajv').default };
  const addFormats = require('ajv-formats');
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormats.default ?? addFormats)(ajv);
  const validate = ajv.compile(schema);
  if (validate(server)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `server.json${e.instancePath || ''}: ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

// The registry's server name: a reverse-DNS namespace, one slash, a name; each starts and ends
// with a letter or digit.
const SERVER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]\/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;
const NPM_REGISTRY = 'https://registry.npmjs.org';
const GITHUB_REPOSITORY_URL = /^https?:\/\/(www\.)?github\.com\/[\w.-]+\/[\w.-]+\/?$/;
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';

/** A version range or wildcard rather than one version (the registry rejects them, and `latest`). */
function versionProblem(where, version) {
  if (version === undefined) return [];
  if (version === 'latest') return [`${where}: "latest" is reserved; give a specific version`];
  const v = String(version).trim();
  const part = String.raw`v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?`;
  const range =
    new RegExp(String.raw`^(?:\^|~|>=|<=|>|<|=)\s*${part}$`).test(v) ||
    new RegExp(String.raw`^${part}\s-\s*${part}$`).test(v) ||
    new RegExp(String.raw`^${part}\s*(?:\|\|\s*${part}\s*)+$`).test(v) ||
    (/^(?:v?\d+|x|X|\*)(?:\.(?:\d+|x|X|\*)){1,2}(?:-[0-9A-Za-z.-]+)?$/.test(v) && /[xX*]/.test(v));
  return range ? [`${where}: "${version}" is a version range; give one specific version`] : [];
}

function argumentProblems(where, args = []) {
  const problems = [];
  args.forEach((arg, i) => {
    if (arg.type !== 'named') return;
    const at = `${where}[${i}]`;
    if (!arg.name) problems.push(`${at}.name: a named argument needs its name`);
    else if (/[<> $]/.test(arg.name))
      problems.push(`${at}.name: "${arg.name}" holds a value or a description; give the flag alone`);
    for (const key of ['value', 'default'])
      if (arg.name && typeof arg[key] === 'string' && arg[key].startsWith(arg.name))
        problems.push(`${at}.${key}: starts with the argument's name "${arg.name}"; give the value alone`);
  });
  return problems;
}

/**
 * Where `server` breaks the registry's rules beyond its schema. `npmPackage(name)` answers the
 * package.json that will be published under that name (or nothing): the registry reads its
 * `mcpName` at the listed version to check that the publisher owns the package.
 * `githubOwner`, when the name is in a GitHub namespace, is the account that will publish:
 * GitHub authentication grants `io.github.<owner>/*` only.
 */
export function registryProblems(server, { npmPackage, githubOwner } = {}) {
  const problems = [];
  if (!SERVER_NAME.test(server.name ?? ''))
    problems.push(
      `server.json/name: "${server.name}" is not <reverse-DNS namespace>/<name> (letters, digits, and . - _ inside)`,
    );
  const github = /^io\.github\.([^/]+)\//.exec(server.name ?? '');
  if (github && githubOwner !== undefined && github[1] !== githubOwner)
    problems.push(
      `server.json/name: the namespace io.github.${github[1]} is granted only to the GitHub account ${github[1]}, but the repository is ${githubOwner}'s`,
    );
  problems.push(...versionProblem('server.json/version', server.version));

  if (server.repository?.url || server.repository?.source) {
    if (server.repository.source === 'github' && !GITHUB_REPOSITORY_URL.test(server.repository.url ?? ''))
      problems.push(`server.json/repository/url: "${server.repository.url}" is not a GitHub repository URL`);
    const sub = server.repository.subfolder;
    if (
      sub !== undefined &&
      (!/^[a-zA-Z0-9\-_./]+$/.test(sub) ||
        sub.startsWith('/') ||
        sub.endsWith('/') ||
        sub.split('/').some((s) => s === '' || s === '.' || s === '..'))
    )
      problems.push(`server.json/repository/subfolder: "${sub}" is not a clean relative path`);
  }
  if (server.websiteUrl !== undefined && !String(server.websiteUrl).startsWith('https://'))
    problems.push('server.json/websiteUrl: must be an https URL');

  if (server._meta !== undefined) {
    for (const key of Object.keys(server._meta))
      if (key !== PUBLISHER_META)
        problems.push(`server.json/_meta: only "${PUBLISHER_META}" is kept by the registry, not "${key}"`);
    const size = Buffer.byteLength(JSON.stringify(server._meta[PUBLISHER_META] ?? {}));
    if (size > 4096)
      problems.push(`server.json/_meta: the publisher-provided metadata is ${size} bytes, over 4096`);
  }

  (server.packages ?? []).forEach((pkg, i) => {
    const at = `server.json/packages/${i}`;
    if (String(pkg.identifier ?? '').includes(' '))
      problems.push(`${at}/identifier: must not contain spaces`);
    problems.push(...versionProblem(`${at}/version`, pkg.version));
    problems.push(...argumentProblems(`${at}/packageArguments`, pkg.packageArguments));
    problems.push(...argumentProblems(`${at}/runtimeArguments`, pkg.runtimeArguments));
    if (pkg.transport?.type === 'stdio' && pkg.transport.url)
      problems.push(`${at}/transport/url: a stdio transport has no URL`);
    if (pkg.registryType !== 'npm') return;
    if (pkg.registryBaseUrl !== undefined && pkg.registryBaseUrl.replace(/\/$/, '') !== NPM_REGISTRY)
      problems.push(`${at}/registryBaseUrl: the registry accepts npm packages from ${NPM_REGISTRY} only`);
    if (!npmPackage) return;
    const published = npmPackage(pkg.identifier);
    if (!published) {
      problems.push(`${at}/identifier: no package ${pkg.identifier} is published from this repository`);
      return;
    }
    if (published.version !== pkg.version)
      problems.push(`${at}/version: ${pkg.identifier} is at ${published.version}, not ${pkg.version}`);
    if (published.mcpName !== server.name)
      problems.push(
        `${at}: ${pkg.identifier}'s package.json has mcpName ${JSON.stringify(published.mcpName)}; the registry requires "${server.name}"`,
      );
  });
  return problems;
}

/** owner and repository name of a package.json `repository` on GitHub, in any form npm accepts. */
export function githubRepository(repository) {
  const url = typeof repository === 'string' ? repository : repository?.url;
  const match =
    /^(?:github:)?([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?$/.exec(url ?? '') ??
    /^(?:git\+)?(?:https|ssh|git):\/\/(?:git@)?(?:www\.)?github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(
      url ?? '',
    );
  if (!match) {
    throw new Error(
      `package.json: "repository" must be a GitHub repository (e.g. "git+https://github.com/<owner>/<repo>.git"); found ${JSON.stringify(repository)}`,
    );
  }
  return { owner: match[1], repo: match[2] };
}
