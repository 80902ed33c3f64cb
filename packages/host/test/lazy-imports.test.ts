import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it, vi } from 'vitest';
import { startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { fixtureApp, spawnHttpHost } from './support.js';

// Desktop clients spawn stdio servers at launch (Claude Desktop a second one to probe): what a
// host does not use must not load. These packages load only when configured.
// The agent frameworks are optional peers, each loaded only by its own entry (`@toolhost/host/<entry>`).
const FRAMEWORKS: Record<string, string> = {
  ai: 'ai-sdk',
  '@langchain/core': 'langchain',
  '@openai/agents-core': 'openai-agents',
};
const OPTIONAL = [
  'ioredis',
  'prom-client',
  'rate-limiter-flexible',
  'yaml',
  '@opentelemetry/api',
  ...Object.keys(FRAMEWORKS),
];

/**
 * A module hook that writes, at exit, the packages every import and require resolved to, the
 * files, and the CommonJS files loaded through the ES module loader (by `import`).
 */
function loadRecorder(): {
  args: string[];
  /** Whether the process has exited and written what it loaded. */
  written: () => boolean;
  loaded: () => string[];
  files: () => string[];
  importedCommonJs: () => string[];
} {
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
const files = new Set();
const importedCommonJs = new Set();
const record = (url) => {
  files.add(String(url));
  const m = String(url).match(/node_modules\\/(?:\\.pnpm\\/[^/]+\\/node_modules\\/)?((?:@[^/]+\\/)?[^/]+)/);
  if (m) seen.add(m[1]);
};
port1.on('message', ({ url, format }) => {
  record(url);
  if (format === 'commonjs') importedCommonJs.add(url);
});
port1.unref();
// require() calls (CommonJS, and createRequire in ES modules) do not pass the resolve hook.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  record(file);
  return file;
};
register('data:text/javascript,' + encodeURIComponent('let port; export function initialize(d) { port = d.port } export async function load(u, c, n) { const r = await n(u, c); port.postMessage({ url: u, format: r.format }); return r }'), import.meta.url, { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify({ packages: [...seen], files: [...files], importedCommonJs: [...importedCommonJs] })));
`,
  );
  const read = () =>
    JSON.parse(readFileSync(out, 'utf8')) as {
      packages: string[];
      files: string[];
      importedCommonJs: string[];
    };
  return {
    args: ['--import', hook],
    written: () => existsSync(out),
    loaded: () => read().packages,
    files: () => read().files,
    importedCommonJs: () => read().importedCommonJs.filter((url) => url.includes('/node_modules/')),
  };
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

  it.each(Object.entries(FRAMEWORKS))('%s loads through its own entry only', async (framework, entry) => {
    const recorder = loadRecorder();
    await promisify(execFile)(
      process.execPath,
      [...recorder.args, '--input-type=module', '-e', `await import('@toolhost/host/${entry}');`],
      { cwd: fixtureApp },
    );
    expect(recorder.loaded().filter((p) => p in FRAMEWORKS)).toEqual([framework]);
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
    // Written at the host's exit, which a loaded machine may take a while to reach: asked to stop
    // here, since the client's close kills a host not gone 4 s after its stdin ends (no record then).
    process.kill(transport.pid!, 'SIGTERM');
    await vi.waitFor(() => expect(recorder.written()).toBe(true), { timeout: 30_000, interval: 50 });
    await client.close();
    expect(recorder.loaded().filter((p) => OPTIONAL.includes(p))).toEqual([]);
    // Declarations are checked with a validator generated at build time; argument validators
    // are compiled at a tool's first call.
    expect(recorder.files().filter(isAjvCompiler)).toEqual([]);
    // Write safety keeps its records in memory here: it is made at the first write.
    expect(recorder.files().filter(isWriteSafety)).toEqual([]);
    // No provider signs users in with OAuth here: the OAuth client is not loaded.
    expect(recorder.loaded()).not.toContain('oauth4webapi');
  });

  it('serve --http loads neither the counters nor the connections page until they are asked for', async () => {
    const recorder = loadRecorder();
    const served = await spawnHttpHost({ plugins: ['toolhost-plugin-echo'] }, {}, recorder.args);
    expect((await fetch(new URL('/healthz', served.url))).status).toBe(200);
    served.child.kill('SIGTERM');
    await served.exited;
    expect(recorder.loaded().filter((p) => p === 'prom-client' || p === '@opentelemetry/api')).toEqual([]);
    expect(recorder.files().filter(isPageModule)).toEqual([]);
    expect(recorder.files().filter(isWriteSafety)).toEqual([]);

    const upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
    const asked = loadRecorder();
    const again = await spawnHttpHost(
      { plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } },
      { ECHO_AUTH_TOKEN: 'echo-token' },
      asked.args,
    );
    try {
      const page = await fetch(new URL('/connections', again.url));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Connections');
      // A call before anything listed the tools (the host's warm-up) or read the counters is counted.
      const client = new ModernClient({ name: 'lazy-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(again.url)));
      await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: 'a1' } });
      await client.close();
      const metrics = await (await fetch(new URL('/metrics', again.url))).text();
      expect(metrics).toMatch(
        /^toolhost_tool_calls_total\{tool_set="EchoApi",tool="EchoApi.GetItem",outcome="ok"\} 1$/m,
      );
      expect(metrics).toMatch(/^toolhost_http_sessions \d+$/m);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
      await upstream.close();
    }
    // The recorder sees them load when asked for: the check above can fail.
    expect(asked.loaded()).toContain('prom-client');
    expect(asked.files().filter(isPageModule).length).toBeGreaterThan(0);
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

/** A file of ajv's schema compiler (its generated validators need only ajv's small runtime). */
const isAjvCompiler = (file: string) => /\/ajv\/dist\/(ajv|core|compile\/)/.test(file);
/** A module of write safety beyond the constant confirmations are signed with. */
const isWriteSafety = (file: string) =>
  /write-safety\/dist\/(?!confirmed-call-ttl|confirmation-message)/.test(file);
/** A module of the `/connections` page or its sign-in. */
const isPageModule = (file: string) =>
  /host\/dist\/http\/(connections-page|connections-view|sign-in-cookie|pages-sign-in|front-door-sign-in)\.js/.test(
    file,
  );

describe('start-up path', () => {
  // Node imports a CommonJS package by lexing its files for their export names; on Node 20
  // that made importing tsyringe, pino and commander two to three times the cost of
  // require(), so the host requires the CommonJS packages it loads at start.
  it('importing @toolhost/host and `toolhost list` import no CommonJS package', async () => {
    const imported = loadRecorder();
    await promisify(execFile)(
      process.execPath,
      [...imported.args, '--input-type=module', '-e', "await import('@toolhost/host');"],
      { cwd: fixtureApp },
    );
    expect(imported.loaded()).toContain('tsyringe');
    expect(imported.importedCommonJs()).toEqual([]);
    const listed = loadRecorder();
    const config = join(mkdtempSync(join(tmpdir(), 'toolhost-json-')), 'toolhost.config.json');
    writeFileSync(config, JSON.stringify({ plugins: ['toolhost-plugin-echo'] }));
    await promisify(execFile)(process.execPath, [...listed.args, hostCliPath(), '--config', config, 'list'], {
      cwd: fixtureApp,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(listed.loaded()).toEqual(expect.arrayContaining(['commander', 'pino', 'tsyringe']));
    expect(listed.importedCommonJs()).toEqual([]);
  });

  it("compiles a tool's argument validator at its first call, which still names the bad argument", async () => {
    const recorder = loadRecorder();
    const config = join(mkdtempSync(join(tmpdir(), 'toolhost-json-')), 'toolhost.config.json');
    writeFileSync(config, JSON.stringify({ plugins: ['toolhost-plugin-echo'] }));
    const run = await promisify(execFile)(
      process.execPath,
      [
        ...recorder.args,
        hostCliPath(),
        '--config',
        config,
        'call',
        'EchoApi.GetItem',
        '--args',
        '{"item_id":5}',
      ],
      { cwd: fixtureApp, env: { PATH: process.env.PATH ?? '' } },
    ).catch((e: { stdout: string }) => e);
    const outcome = JSON.parse(run.stdout) as { ok: boolean; error: { code: string; message: string } };
    expect(outcome.ok).toBe(false);
    expect(outcome.error.code).toBe('invalid_argument');
    expect(outcome.error.message).toContain('item_id');
    expect(recorder.files().filter(isAjvCompiler).length).toBeGreaterThan(0);
  });
});
