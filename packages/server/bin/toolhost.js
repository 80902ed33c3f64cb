#!/usr/bin/env node
// The host's command, run from this package: the host looks for plugins beside the command
// that was run too, so it finds the five this package depends on, whatever layout the package
// manager chose (npx and npm hoist them beside the host; pnpm does not).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The host's exports map names its library only; its command sits beside its package.json.
const host = dirname(createRequire(import.meta.url).resolve('@toolhost/host/package.json'));
await import(pathToFileURL(join(host, 'bin', 'toolhost.js')).href);
