import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { sayWhatStdioAwaits } from '../src/cli/serve.js';
import { cli, fixtureApp } from './support.js';

const run = promisify(execFile);
let upstream: RecordingUpstream;
let configFile: string;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  configFile = join(fixtureApp, 'toolhost.config.json');
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-cli-'));
  configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } }),
  );
});
afterAll(() => upstream.close());

describe('toolhost CLI', () => {
  it('prints help naming its commands', async () => {
    const { stdout } = await cli(['--help']);
    for (const word of ['serve', 'list', 'call', '--config']) expect(stdout).toContain(word);
  });

  it('answers a mistake with the command’s usage line, not the whole help', async () => {
    const r = await cli(['serve', '--catalog', 'everything']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("argument 'everything' is invalid");
    expect(r.stderr).toContain('Usage: toolhost serve [options]\n(toolhost serve --help for more)');
    expect(r.stderr).not.toContain('Environment variables');
    expect(r.stderr.split('\n').length).toBeLessThan(6);
  });

  it('lists the catalog, and as JSON with schemas', async () => {
    const text = await cli(['--config', configFile, 'list']);
    expect(text.stdout).toContain('EchoApi.GetItem (read-only)');
    expect(text.stdout).toContain('3 tools');
    const json = JSON.parse((await cli(['--config', configFile, 'list', '--json'])).stdout) as {
      name: string;
      inputSchema: unknown;
    }[];
    expect(json.find((t) => t.name === 'EchoApi.GetItem')!.inputSchema).toMatchObject({
      required: ['item_id'],
    });
  });

  it('calls one tool and prints the outcome', async () => {
    const r = await cli(['--config', configFile, 'call', 'EchoApi.GetItem', '--args', '{"item_id":"i1"}'], {
      ECHO_AUTH_TOKEN: 'tok-cli',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, kind: 'response', status: 200, body: { ok: true } });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer tok-cli');
  });

  it('exits 1 with a structured error for bad arguments', async () => {
    const r = await cli(['--config', configFile, 'call', 'EchoApi.GetItem', '--args', '{}']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', parameter: 'item_id' },
    });
  });

  it('rejects --args that are not JSON', async () => {
    const r = await cli(['--config', configFile, 'call', 'EchoApi.GetItem', '--args', '{nope']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--args is not valid JSON/);
    // The usage line of the command that was mistyped, where --args is, not the top level's.
    expect(r.stderr).toContain('Usage: toolhost call [options] <name>\n(toolhost call --help for more)');
  });

  it('answers describe of an unknown tool with the name meant and describe’s own usage line', async () => {
    const r = await cli(['--config', configFile, 'describe', 'EchoApi.GetItems']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Did you mean 'EchoApi.GetItem'?");
    expect(r.stderr).toContain(
      'Usage: toolhost describe [options] <name>\n(toolhost describe --help for more)',
    );
  });

  it('names the offending key of an invalid config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-cli-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tools: { alow: ['*'] } }));
    const r = await cli(['--config', bad, 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown key 'tools\.alow'/);
  });

  it('refuses a catalog mode other than auto, static or dynamic, from the flag or the environment', async () => {
    const flag = await cli(['--config', configFile, 'serve', '--stdio', '--catalog', 'lazy']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toMatch(/--catalog.*Allowed choices are auto, static, dynamic/);
    const env = await cli(['--config', configFile, 'serve', '--stdio'], { TOOLHOST_CATALOG: 'lazy' });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/mcp\.catalog/);
  });
});

describe('serve over stdio started by hand', () => {
  it('tells a person at a terminal, in one line, what it waits for and what else to run', () => {
    const written: string[] = [];
    sayWhatStdioAwaits(true, (text) => written.push(text));
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      /^toolhost: this is an MCP server on stdio, waiting for an MCP client[^\n]*\n$/,
    );
    for (const hint of ['toolhost serve --http', 'toolhost doctor']) expect(written[0]).toContain(hint);
  });

  it("says nothing to a client's pipe, on stderr or on stdout (the MCP channel)", async () => {
    const silent: string[] = [];
    sayWhatStdioAwaits(false, (text) => silent.push(text));
    sayWhatStdioAwaits(undefined, (text) => silent.push(text));
    expect(silent).toEqual([]);
    // The CLI's own stdin is a pipe here, ended at once: the host serves, then stops.
    const r = await cli(['--config', configFile, 'serve', '--stdio']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('serving on stdio');
    expect(r.stderr).not.toContain('waiting for an MCP client');
    expect(r.stdout).toBe('');
  });
});

describe('where the CLI finds plugins', () => {
  const emptyConfig = (extra: object = {}) => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolhost-cli-')), 'config.json');
    writeFileSync(file, JSON.stringify(extra));
    return file;
  };

  it('finds the plugins installed beside the host, from any directory and with no config', async () => {
    // In this repository the five plugins are installed beside the host package (the root
    // node_modules), as they are beside a globally installed host.
    const r = await cli(['list'], {}, mkdtempSync(join(tmpdir(), 'toolhost-elsewhere-')));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CrmEventsApi.ListEventTypes (read-only)');
    expect(r.stdout).toContain('GridApi.');
    expect(r.stdout).toMatch(/^214 tools$/m);
  });

  it('loads the plugins --plugins or TOOLHOST_PLUGINS names, without a config file', async () => {
    const flag = await cli(['--plugins', 'toolhost-plugin-echo', 'list']);
    expect(flag.stdout).toMatch(/^3 tools$/m);
    const env = await cli(['list'], { TOOLHOST_PLUGINS: 'toolhost-plugin-echo' });
    expect(env.stdout).toMatch(/^3 tools$/m);
    expect(env.stdout).toContain('EchoApi.GetItem');
  });

  it('refuses to serve no tools, saying what to install, unless --allow-empty', async () => {
    const none = emptyConfig({ plugins: [] });
    const refused = await cli(['--config', none, 'serve', '--stdio']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('No tools to serve. The configuration names no plugin to load.');
    expect(refused.stderr).toContain('npm install -g @toolhost/plugin-crm-events');
    const allowed = await cli(['--config', none, '--allow-empty', 'list']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^0 tools$/m);
  });

  it('in a plugin’s own directory, names --plugins . to load it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-own-plugin-'));
    const echo = join(fixtureApp, 'node_modules', 'toolhost-plugin-echo');
    for (const file of ['package.json', 'index.js'])
      writeFileSync(join(dir, file), readFileSync(join(echo, file)));
    writeFileSync(join(dir, 'none.json'), JSON.stringify({ plugins: [] }));
    const refused = await cli(['--config', 'none.json', 'list'], {}, dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "This directory is the plugin 'toolhost-plugin-echo': load it with --plugins . (once built).",
    );
    const loaded = await cli(['--plugins', '.', 'list'], {}, dir);
    expect(loaded.stdout).toMatch(/^3 tools$/m);
    // Elsewhere, nothing is said of a plugin here.
    expect((await cli(['--config', emptyConfig({ plugins: [] }), 'list'])).stderr).not.toContain(
      'This directory',
    );
  });

  it('names the filters when plugins are loaded but every tool is hidden', async () => {
    const hidden = emptyConfig({ plugins: ['toolhost-plugin-echo'], tools: { deny: ['EchoApi.*'] } });
    const r = await cli(['--config', hidden, 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the loaded plugins toolhost-plugin-echo (EchoApi) have tools, but the configuration hides all of them',
    );
  });

  it('names the flags too, when flags hide every tool', async () => {
    const plugin = emptyConfig({ plugins: ['toolhost-plugin-echo'] });
    const r = await cli(['--config', plugin, '--tool-sets', 'EchoApi', '--deny', 'EchoApi.*', 'list']);
    expect(r.code).toBe(1);
    // A newcomer who typed flags looks for them, not only for config keys.
    expect(r.stderr).toContain('tools.toolSets, tools.allow, tools.deny and tools.readOnly');
    expect(r.stderr).toContain('their flags --tool-sets, --allow, --deny and --read-only');
  });

  it('says where it looked when a named plugin is not installed', async () => {
    const r = await cli(['--plugins', 'toolhost-plugin-missing', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /'toolhost-plugin-missing' is not installed where the host looks \(from .*fixtures\/app, .*packages\/host\/\)\. Install it/,
    );
    // A slip in the name of one that is installed is named.
    const slip = await cli(['--plugins', 'toolhost-plugin-ecko', 'list']);
    expect(slip.code).toBe(1);
    expect(slip.stderr).toMatch(
      /'toolhost-plugin-ecko' is not installed .*\. Did you mean 'toolhost-plugin-echo'\? Install it/,
    );
  });
});

describe('plugins resolved as Node resolves an import', () => {
  const esmApp = join(fixtureApp, '..', 'esm-app');

  it('discovers and loads a plugin whose exports map has only types and import conditions', async () => {
    const list = await cli(['list'], {}, esmApp);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('EsmApi.ListThings (read-only)');
    expect(list.stdout).toContain('CrmEventsApi.ListEventTypes (read-only)');
  });

  it('lets doctor report it like any other plugin', async () => {
    const r = await cli(['--plugins', 'toolhost-plugin-esm-only', 'doctor'], {}, esmApp);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('toolhost-plugin-esm-only@0.4.0: EsmApi (contract 2.0)');
    expect(r.stdout).toContain('EsmApi (1 tools): ready');
    expect(r.code).toBe(0);
  });

  it('shows the real resolution error for an installed package that cannot be imported', async () => {
    const r = await cli(
      ['--plugins', 'toolhost-plugin-broken-exports', 'list'],
      {},
      join(fixtureApp, '..', 'broken-app'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "Plugin package 'toolhost-plugin-broken-exports' is installed but cannot be imported",
    );
    expect(r.stderr).toMatch(/No "exports" main defined in .*toolhost-plugin-broken-exports/);
    expect(r.stderr).not.toContain('not installed where the host looks');
  });

  it('lets doctor report on the other plugins when an installed one cannot be imported', async () => {
    const brokenApp = join(fixtureApp, '..', 'broken-app');
    const r = await cli(['doctor'], {}, brokenApp);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /toolhost-plugin-broken-exports: CANNOT BE LOADED: Plugin package 'toolhost-plugin-broken-exports' is installed but cannot be imported .*No "exports" main defined/,
    );
    expect(r.stdout).toContain('GridApi (96 tools)');
    // Commands that serve or call still refuse to start without it.
    expect((await cli(['list'], {}, brokenApp)).code).toBe(1);
  });

  it('loads a plugin folder named by path through its own exports map', async () => {
    const r = await cli(['--plugins', './node_modules/toolhost-plugin-esm-only', 'list'], {}, esmApp);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1 tools$/m);
  });

  it("loads the plugin in the working directory named '.', as its author tries it", async () => {
    // '.' was taken for a package name: Node's "Directory import is not supported", naming the host's files.
    const r = await cli(
      ['--plugins', '.', 'list'],
      {},
      join(esmApp, 'node_modules', 'toolhost-plugin-esm-only'),
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^1 tools$/m);
  });

  it('takes a path given by flag or environment from the working directory, in a config from its file', async () => {
    // Flag and environment paths were taken from the config file's directory, where '.' is not the plugin.
    const config = join(mkdtempSync(join(tmpdir(), 'toolhost-cfg-')), 'config.json');
    const pluginDir = join(esmApp, 'node_modules', 'toolhost-plugin-esm-only');
    writeFileSync(config, '{}');
    for (const [args, env] of [
      [['--config', config, '--plugins', '.'], {}],
      [['--plugins', '../toolhost-plugin-esm-only'], { TOOLHOST_CONFIG: config }],
      [[], { TOOLHOST_CONFIG: config, TOOLHOST_PLUGINS: './' }],
    ] as const) {
      const r = await cli([...args, 'list'], env, pluginDir);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^1 tools$/m);
    }
    writeFileSync(config, JSON.stringify({ plugins: [relative(dirname(config), pluginDir)] }));
    const fromConfig = await cli(['--config', config, 'list'], {}, fixtureApp);
    expect(fromConfig.stderr).toBe('');
    expect(fromConfig.stdout).toMatch(/^1 tools$/m);
    // A Windows-style relative path is a path too, not a package name to look for in node_modules.
    const windows = await cli(['--plugins', '.\\missing', 'list'], {}, fixtureApp);
    expect(windows.stderr).toContain(`Plugin path '.\\missing' ('${fixtureApp}`);
  });
});

describe('plugins installed beside the command that was run', () => {
  it("finds a distribution's plugins beside its own bin, reached through a link, from any directory", async () => {
    // A distribution as pnpm lays it out: its bin and its plugins in one folder the host's
    // package does not sit in, and the command on the PATH a link to its bin.
    const dist = mkdtempSync(join(tmpdir(), 'toolhost-distribution-'));
    mkdirSync(join(dist, 'bin'));
    mkdirSync(join(dist, 'node_modules'));
    symlinkSync(
      join(fixtureApp, '..', 'esm-app', 'node_modules', 'toolhost-plugin-esm-only'),
      join(dist, 'node_modules', 'toolhost-plugin-esm-only'),
    );
    writeFileSync(
      join(dist, 'bin', 'run.js'),
      `await import(${JSON.stringify(pathToFileURL(hostCliPath()).href)});\n`,
    );
    const links = mkdtempSync(join(tmpdir(), 'toolhost-links-'));
    symlinkSync(join(dist, 'bin', 'run.js'), join(links, 'toolhost.mjs'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'toolhost-anywhere-'));
    const { stdout } = await run(process.execPath, [join(links, 'toolhost.mjs'), 'list'], {
      cwd: elsewhere,
      env: { PATH: process.env.PATH },
    });
    expect(stdout).toContain('EsmApi.ListThings (read-only)');
  });
});

describe('the toolhost command', () => {
  it('is linked by the install itself, before any build, and runs the built CLI', async () => {
    // bin/toolhost.js is committed, so the package manager links it at install time; in this
    // repository the root package depends on the host, so the link is node_modules/.bin.
    const link = fileURLToPath(new URL('../../../node_modules/.bin/toolhost', import.meta.url));
    const r = await run(link, ['--version'], { env: { PATH: process.env.PATH } });
    expect(r.stdout.trim()).toBe(
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version,
    );
  });
});
