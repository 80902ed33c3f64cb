#!/usr/bin/env node
// Validates server.json against the MCP Registry's own schema, the one its `$schema` names
// (fetched from the registry's CDN: the release workflow runs this where the network is
// there), or a schema file given as the argument.
//   node scripts/validate-server-json.mjs [schema.json]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../packages/host/package.json', import.meta.url));
const server = JSON.parse(readFileSync('server.json', 'utf8'));
const schema = process.argv[2]
  ? JSON.parse(readFileSync(process.argv[2], 'utf8'))
  : await fetch(server.$schema).then((r) => {
      if (!r.ok) throw new Error(`${server.$schema} answered HTTP ${r.status}`);
      return r.json();
    });
// The schema's own draft decides the validator: 2020-12 needs ajv's 2020 build.
const draft2020 = String(schema.$schema ?? '').includes('2020-12');
const { default: Ajv } = draft2020 ? require('ajv/dist/2020') : require('ajv');
const addFormats = require('ajv-formats');
const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats.default ?? addFormats)(ajv);
const validate = ajv.compile(schema);
if (!validate(server)) {
  for (const e of validate.errors ?? []) console.error(`server.json${e.instancePath || ''}: ${e.message}`);
  process.exit(1);
}
console.log(`server.json is valid against ${process.argv[2] ?? server.$schema}.`);
