#!/usr/bin/env node
// Writes @toolhost/search's eval/foreign/foreign-tools.json: the tool descriptions of other public MCP servers and
// OpenAPI specs, under permissive licences, that the bench's mixed catalog puts beside the
// host's tools. Each origin is read from a git clone at a fixed commit (bare or not):
//   node scripts/extract-foreign-tools.mjs <dir holding owner+name/ clones>
// e.g. /work/.mirror (where each clone is owner+name/repo). Only names, descriptions,
// parameter names and endpoints are kept: what a search reads.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node scripts/extract-foreign-tools.mjs <dir of owner+name clones>\n');
  process.exit(2);
}
// Beside the search package's other evaluation data, which its tests and the bench read.
const DIR = new URL('../../search/eval/foreign/', import.meta.url);

/** @typedef {{ name: string, toolSet: string, description: string, inputSchema: { properties: Record<string, { description?: string }>, required: string[] }, hints: { readOnly: boolean }, endpoint?: { method: string, path: string, pathParams: string[] } }} ForeignTool */

const ORIGINS = [
  {
    toolSet: 'SendGrid',
    repository: 'https://github.com/twilio/sendgrid-oai',
    licence: 'MIT',
    kind: 'openapi-json-files',
    files: 'spec/json',
  },
  {
    toolSet: 'DigitalOcean',
    repository: 'https://github.com/digitalocean/openapi',
    licence: 'Apache-2.0',
    kind: 'openapi-yaml-split',
    files: 'specification/DigitalOcean-public.v2.yaml',
  },
  {
    toolSet: 'GitHubMcp',
    repository: 'https://github.com/github/github-mcp-server',
    licence: 'MIT',
    kind: 'mcp-toolsnaps',
    files: 'pkg/github/__toolsnaps__',
  },
];

/** git in the clone of `repository` under root, bare (…/repo) or not. */
function gitFor(/** @type {string} */ repository) {
  const [owner, name] = repository.replace('https://github.com/', '').split('/');
  const dir = join(root, `${owner}+${name}`);
  const gitDir = [join(dir, 'repo'), join(dir, '.git'), dir].find((d) => existsSync(join(d, 'HEAD')));
  if (!gitDir) throw new Error(`no clone of ${repository} under ${root}`);
  return (/** @type {string[]} */ ...args) =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** One line of plain text: markdown links and emphasis dropped, whitespace collapsed, cut at `max`. */
function plain(/** @type {unknown} */ text, max = 400) {
  const s = String(text ?? '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A tool for one OpenAPI operation; parameters given by $ref keep the ref's last segment as their name. */
function operationTool(
  /** @type {string} */ toolSet,
  /** @type {string} */ method,
  /** @type {string} */ path,
  /** @type {any} */ op,
  /** @type {(ref: string) => any} */ resolve,
) {
  /** @type {Record<string, { description?: string }>} */
  const properties = {};
  for (const p of op.parameters ?? []) {
    const param = p.$ref ? (resolve(p.$ref) ?? { name: p.$ref.split('/').pop() }) : p;
    if (!param?.name || param.in === 'header') continue;
    properties[param.name] = param.description ? { description: plain(param.description, 160) } : {};
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  const bodySchema = body?.$ref ? resolve(body.$ref) : body;
  for (const [name, prop] of Object.entries(bodySchema?.properties ?? {}))
    properties[name] ??= /** @type {any} */ (prop)?.description
      ? { description: plain(/** @type {any} */ (prop).description, 160) }
      : {};
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => /** @type {string} */ (m[1]));
  for (const p of pathParams) properties[p] ??= {};
  const summary = plain(op.summary, 200).replace(/\.$/, '');
  const detail = plain(op.description);
  return {
    name: `${toolSet}.${op.operationId ?? `${method}_${path}`.replace(/[^\w]+/g, '_')}`,
    toolSet,
    description: detail && !detail.startsWith(summary) ? plain(`${summary}. ${detail}`) : detail || summary,
    inputSchema: { properties, required: pathParams },
    hints: { readOnly: method === 'get' },
    endpoint: { method: method.toUpperCase(), path, pathParams },
  };
}

/** A local `#/a/b` reference in `doc`. */
const localRef = (/** @type {any} */ doc) => (/** @type {string} */ ref) =>
  ref.startsWith('#/')
    ? ref
        .slice(2)
        .split('/')
        .reduce((o, k) => o?.[k], doc)
    : undefined;

/** @returns {ForeignTool[]} */
function extract(
  /** @type {(typeof ORIGINS)[number]} */ origin,
  /** @type {ReturnType<typeof gitFor>} */ git,
) {
  const files = git('ls-tree', '-r', '--name-only', 'HEAD', origin.files).split('\n').filter(Boolean);
  /** @type {ForeignTool[]} */
  const tools = [];
  if (origin.kind === 'openapi-json-files') {
    for (const file of files.filter((f) => f.endsWith('.json'))) {
      const doc = JSON.parse(git('show', `HEAD:${file}`));
      for (const [path, ops] of Object.entries(doc.paths ?? {}))
        for (const method of METHODS)
          if (ops[method])
            tools.push(operationTool(origin.toolSet, method, path, ops[method], localRef(doc)));
    }
  } else if (origin.kind === 'openapi-yaml-split') {
    // The main document maps each path and method to the file of its operation.
    const main = parseYaml(git('show', `HEAD:${origin.files}`));
    const base = origin.files.slice(0, origin.files.lastIndexOf('/') + 1);
    for (const [path, ops] of Object.entries(main.paths ?? {}))
      for (const method of METHODS) {
        const ref = ops[method]?.$ref;
        if (!ref) continue;
        const opFile = base + ref.replace(/^\.\//, '');
        const op = parseYaml(git('show', `HEAD:${opFile}`));
        tools.push(operationTool(origin.toolSet, method, path, op, () => undefined));
      }
  } else {
    for (const file of files.filter((f) => f.endsWith('.snap'))) {
      const snap = JSON.parse(git('show', `HEAD:${file}`));
      /** @type {Record<string, { description?: string }>} */
      const properties = {};
      for (const [name, prop] of Object.entries(snap.inputSchema?.properties ?? {}))
        properties[name] = /** @type {any} */ (prop)?.description
          ? { description: plain(/** @type {any} */ (prop).description, 160) }
          : {};
      tools.push({
        name: `${origin.toolSet}.${snap.name}`,
        toolSet: origin.toolSet,
        description: plain(snap.description),
        inputSchema: { properties, required: snap.inputSchema?.required ?? [] },
        hints: { readOnly: snap.annotations?.readOnlyHint === true },
      });
    }
  }
  // Operation ids repeat across some specs' files: the later ones get a suffix.
  const seen = new Map();
  for (const t of tools) {
    const n = (seen.get(t.name) ?? 0) + 1;
    seen.set(t.name, n);
    if (n > 1) t.name = `${t.name}_${n}`;
  }
  return tools;
}

const origins = [];
/** @type {ForeignTool[]} */
const tools = [];
for (const origin of ORIGINS) {
  const git = gitFor(origin.repository);
  const found = extract(origin, git);
  origins.push({
    toolSet: origin.toolSet,
    repository: origin.repository,
    commit: git('rev-parse', 'HEAD').trim(),
    licence: origin.licence,
    tools: found.length,
  });
  tools.push(...found);
  // Each origin's licence, as its repository states it, beside the data taken from it.
  mkdirSync(new URL('licences/', DIR), { recursive: true });
  writeFileSync(new URL(`licences/${origin.toolSet}.txt`, DIR), git('show', 'HEAD:LICENSE'));
}
writeFileSync(new URL('foreign-tools.json', DIR), `${JSON.stringify({ origins, tools }, null, 2)}\n`);
writeFileSync(
  new URL('NOTICE.md', DIR),
  [
    '# Foreign tool descriptions: sources and licences',
    '',
    '`foreign-tools.json` holds the names, descriptions, parameter names and endpoints of the tools',
    'of other public MCP servers and OpenAPI specs, taken by `scripts/extract-foreign-tools.mjs`',
    "for the bench's mixed catalog (`pnpm -F @toolhost/bench bench:search`). Nothing of them",
    'ships in a package. Each origin, at the commit read, under its own licence (full text in',
    '`licences/`):',
    '',
    '| tool set | source | commit | licence | tools |',
    '|---|---|---|---|---|',
    ...origins.map(
      (o) =>
        `| ${o.toolSet} | ${o.repository} | ${o.commit.slice(0, 12)} | ${o.licence} (licences/${o.toolSet}.txt) | ${o.tools} |`,
    ),
    '',
    'Same-vendor servers (Airtable, HubSpot, Customer.io) are left out on purpose: their tools',
    "would answer the host's questions as rightly as the host's own, and the mixed catalog",
    'measures whether strangers with overlapping words push the right tool down.',
    '',
  ].join('\n'),
);
process.stdout.write(
  `${tools.length} tools from ${origins.map((o) => `${o.toolSet} (${o.tools})`).join(', ')}\n`,
);
