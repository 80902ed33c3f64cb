#!/usr/bin/env node
// Turns the config schema (src/config/config-schema.ts, read from the build) into what must
// never drift from it: the TypeScript types (src/config/host-config.generated.ts) and the
// configuration reference (docs/configuration.md). Run after a change to the schema:
//   pnpm --filter @toolhost/host build && pnpm config:generate
// `--check` (run by CI through `pnpm config:check`) fails when either output is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { compile } from 'json-schema-to-typescript';
import { hostConfigSchema } from '../dist/config/config-schema.js';

const typesFile = new URL('../src/config/host-config.generated.ts', import.meta.url);
const readmeFile = new URL('../../../docs/configuration.md', import.meta.url);
const START = '<!-- config-reference:start (generated from the config schema: pnpm config:generate) -->';
const END = '<!-- config-reference:end -->';

const isObjectSchema = (s) => s && typeof s === 'object' && !Array.isArray(s);

/** Description plus the default, for the JSDoc of the generated types. */
function withDefaultNote(schema) {
  if (!isObjectSchema(schema)) return schema;
  const out = Array.isArray(schema) ? [] : {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = isObjectSchema(value) || Array.isArray(value) ? withDefaultNote(value) : value;
  }
  if (out.default !== undefined && out.description) {
    out.description = `${out.description}\n\n@default ${JSON.stringify(out.default)}`;
  }
  for (const key of Object.keys(out)) if (key.startsWith('x-')) delete out[key];
  return out;
}

/** Whether the defaults fill this key in whatever config is given (config-defaults.ts). */
function alwaysPresent(schema) {
  if (schema.default !== undefined) return true;
  return Object.values(schema.properties ?? {}).some(alwaysPresent);
}

/** The schema of a config with its defaults filled: every key that always ends up set is required. */
function resolvedSchema(schema) {
  if (!isObjectSchema(schema)) return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolvedSchema(v)]));
    } else if (key === 'additionalProperties' && isObjectSchema(value)) {
      out.additionalProperties = resolvedSchema(value);
    } else out[key] = value;
  }
  if (out.title) out.title = `Resolved${out.title}`;
  if (schema.properties) {
    const required = Object.entries(schema.properties)
      .filter(([, v]) => alwaysPresent(v))
      .map(([k]) => k);
    if (required.length) out.required = [...new Set([...(schema.required ?? []), ...required])];
  }
  return out;
}

async function generateTypes() {
  const options = {
    bannerComment: '',
    additionalProperties: false,
    unknownAny: true,
    style: { singleQuote: true, printWidth: 110 },
  };
  const input = await compile(withDefaultNote(hostConfigSchema), 'HostConfig', options);
  const resolvedRoot = resolvedSchema(hostConfigSchema);
  resolvedRoot.description =
    'A configuration with its defaults filled in (`host.config`): every key that has a default is set.';
  const resolved = await compile(withDefaultNote(resolvedRoot), 'ResolvedHostConfig', options);
  return [
    '// Generated from src/config/config-schema.ts by scripts/generate-config-reference.mjs; do not edit.',
    '/* eslint-disable */',
    input.trim(),
    '',
    resolved.trim(),
    '',
  ].join('\n');
}

function typeText(schema) {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.oneOf) return schema.oneOf.map(typeText).join(' | ');
  if (schema.type === 'array') return `${typeText(schema.items ?? {})}[]`;
  if (schema.type === 'object' && schema.properties?.requestsPerSecond) return '{ requestsPerSecond }';
  if (schema.type === 'object' && isObjectSchema(schema.additionalProperties)) {
    const value = schema.additionalProperties.title ?? typeText(schema.additionalProperties);
    return `map of ${value}`;
  }
  return schema.type ?? 'any';
}

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One table row per key, depth first, with `<name>` standing for a map's keys. */
function rows(schema, prefix, out) {
  for (const [key, value] of Object.entries(schema.properties ?? {})) {
    if (key === '$schema') continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const setBy = [value['x-env'], value['x-flag']].filter(Boolean).map((s) => `\`${s}\``);
    out.push(
      `| \`${path}\` | ${cell(typeText(value))} | ${value.default === undefined ? '' : `\`${cell(JSON.stringify(value.default))}\``} | ${setBy.join(', ')} | ${cell(value.description ?? '')} |`,
    );
    if (value.properties) rows(value, path, out);
    const entry = value.additionalProperties;
    if (isObjectSchema(entry) && entry.properties) {
      const placeholder = key === 'toolSets' ? '<tool set>' : '<provider id>';
      rows(entry, `${path}.${placeholder}`, out);
    }
  }
  return out;
}

function reference() {
  return [
    START,
    '',
    '| key | type | default | environment / flag | what it does |',
    '|-----|------|---------|--------------------|--------------|',
    ...rows(hostConfigSchema, '', []),
    '',
    END,
  ].join('\n');
}

function withReference(readme) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`docs/configuration.md lacks the markers ${START} … ${END}`);
  return readme.slice(0, start) + reference() + readme.slice(end + END.length);
}

const check = process.argv.includes('--check');
const outputs = [
  [typesFile, await generateTypes()],
  [readmeFile, withReference(readFileSync(readmeFile, 'utf8'))],
];
const stale = outputs.filter(([file, text]) => readFileSync(file, 'utf8') !== text);
if (check) {
  if (stale.length) {
    console.error(
      `Stale (the config schema changed): ${stale.map(([f]) => f.pathname).join(', ')}\nRun: pnpm --filter @toolhost/host build && pnpm config:generate`,
    );
    process.exit(1);
  }
  console.log('Config types and the configuration reference match the schema.');
} else {
  for (const [file, text] of stale) writeFileSync(file, text);
  console.log(stale.length ? `Wrote ${stale.map(([f]) => f.pathname).join(', ')}` : 'Up to date.');
}
