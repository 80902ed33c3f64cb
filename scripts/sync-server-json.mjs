#!/usr/bin/env node
// After `changeset version`: server.json (the MCP Registry entry) states the host's new
// version, which the registry and a test check against packages/host/package.json.
import { readFileSync, writeFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync('packages/host/package.json', 'utf8'));
const server = JSON.parse(readFileSync('server.json', 'utf8'));
server.version = version;
for (const pkg of server.packages) if (pkg.identifier === '@toolhost/host') pkg.version = version;
writeFileSync('server.json', `${JSON.stringify(server, null, 2)}\n`);
