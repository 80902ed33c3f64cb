import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { fixtureApp } from './support.js';

// Desktop clients spawn stdio servers at launch (Claude Desktop a second one to probe): what a
// host does not use must not load. These packages load only when configured.
const OPTIONAL = ['ioredis', 'prom-client', 'rate-limiter-flexible', 'yaml', '@opentelemetry/api'];

/** A module hook that writes, at exit, the packages every import resolved to. */
function loadRecorder(): { args: string[]; loaded: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-loads-'));
  const out = join(dir, 'loaded.json');
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import Module, { register } from 'node:module';
import { writeFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = new Set();
const record = (url) => {
  const m = String(url).match(/node_modules\\/(?:\\.pnpm\\/[^/]+\\/node_modules\\/)?((?:@[^/]+\\/)?[^/]+)/);
  if (m) seen.add(m[1]);
};
port1.on('message', record);
port1.unref();
// require() calls (CommonJS, and createRequire in ES modules) do not pass the resolve hook.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  record(file);
  return file;
};
register('data:text/javascript,' + encodeURIComponent('let port; export function initialize(d) { port = d.port } export async function resolve(s, c, n) { const r = await n(s, c); port.postMessage(r.url); return r }'), import.meta.url, { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify([...seen])));
`,
  );
  return { args: ['--import', hook], loaded: () => JSON.parse(readFileSync(out, 'utf8')) as string[] };
}

describe('optional subsystems load only when configured', () => {
  it('importing @toolhost/host loads none of them', async () => {
    const recorder = loadRecorder();
    await promisify(execFile)(
      process.execPath,
      [...recorder.args, '--input-type=module', '-e', "await import('@toolhost/host');"],
      { cwd: fixtureApp },
    );
    const loaded = recorder.loaded();
    expect(loaded).toContain('@modelcontextprotocol/server');
    expect(loaded.filter((p) => OPTIONAL.includes(p))).toEqual([]);
  });

  it('serve --stdio loads none of them up to the first tools/list', async () => {
    const recorder = loadRecorder();
    const config = join(mkdtempSync(join(tmpdir(), 'toolhost-json-')), 'toolhost.config.json');
    writeFileSync(config, JSON.stringify({ plugins: ['toolhost-plugin-echo'] }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...recorder.args, hostCliPath(), '--config', config, 'serve', '--stdio'],
      env: { PATH: process.env.PATH ?? '' },
      cwd: fixtureApp,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'lazy-test', version: '0.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(recorder.loaded().filter((p) => OPTIONAL.includes(p))).toEqual([]);
  });

  it('loads yaml for a YAML config, which shows the recorder sees a package load', async () => {
    const recorder = loadRecorder();
    const config = join(mkdtempSync(join(tmpdir(), 'toolhost-yaml-')), 'toolhost.config.yaml');
    writeFileSync(config, 'plugins: [toolhost-plugin-echo]\n');
    await promisify(execFile)(
      process.execPath,
      [...recorder.args, hostCliPath(), '--config', config, 'list'],
      {
        cwd: fixtureApp,
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    expect(recorder.loaded()).toContain('yaml');
  });
});
