import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { cli, fixtureApp } from './support.js';

let upstream: RecordingUpstream;
let configFile: string;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  configFile = join(mkdtempSync(join(tmpdir(), 'toolhost-cli-')), 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } }),
  );
});
afterAll(() => upstream.close());

const names = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^\w+\.\w+/.test(l))
    .map((l) => l.split(' ')[0]);

describe('flags and environment variables over the config file', () => {
  it('--read-only and TOOLHOST_READ_ONLY expose only the tools that change nothing', async () => {
    const flag = await cli(['--config', configFile, '--read-only', 'list']);
    expect(names(flag.stdout)).toEqual(['EchoApi.GetItem']);
    const env = await cli(['--config', configFile, 'list'], { TOOLHOST_READ_ONLY: '1' });
    expect(names(env.stdout)).toEqual(['EchoApi.GetItem']);
  });

  it('--allow / --deny and TOOLHOST_ALLOW / TOOLHOST_DENY filter by glob', async () => {
    const allow = await cli([
      '--config',
      configFile,
      '--allow',
      'EchoApi.*Item',
      '--deny',
      '*.Delete*',
      'list',
    ]);
    expect(names(allow.stdout)).toEqual(['EchoApi.GetItem', 'EchoApi.CreateItem']);
    const env = await cli(['--config', configFile, 'list'], {
      TOOLHOST_DENY: 'EchoApi.GetItem,EchoApi.CreateItem',
    });
    expect(names(env.stdout)).toEqual(['EchoApi.DeleteItem']);
  });

  it('--tool-sets and TOOLHOST_TOOL_SETS choose tool sets, naming an unknown one', async () => {
    expect(
      names((await cli(['--config', configFile, '--tool-sets', 'EchoApi', 'list'])).stdout),
    ).toHaveLength(3);
    const wrong = await cli(['--config', configFile, 'list'], { TOOLHOST_TOOL_SETS: 'EchoAPI' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      "tools.toolSets (--tool-sets, TOOLHOST_TOOL_SETS): 'EchoAPI' is not a loaded tool set (loaded: EchoApi). Did you mean EchoApi?",
    );
  });

  it('an unknown log level names TOOLHOST_LOG_LEVEL and the levels there are', async () => {
    const r = await cli(['--config', configFile, 'list'], { TOOLHOST_LOG_LEVEL: 'verbose' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "Unknown log level 'verbose' (from TOOLHOST_LOG_LEVEL or --log-level); use one of fatal, error, warn, info, debug, trace, silent.",
    );
  });

  it('--help lists every environment variable the host reads', async () => {
    const { stdout } = await cli(['--help']);
    for (const name of [
      'TOOLHOST_CONFIG',
      'TOOLHOST_PLUGINS',
      'TOOLHOST_TOOL_SETS',
      'TOOLHOST_READ_ONLY',
      'TOOLHOST_ALLOW',
      'TOOLHOST_DENY',
      'TOOLHOST_LOG_LEVEL',
      'TOOLHOST_TOKEN_KEY',
      'TOOLHOST_DATA_DIR',
      'TOOLHOST_ACCESS_TOKENS',
      '<PROVIDER>_TOKEN',
      'CDP_API_KEY',
    ])
      expect(stdout).toContain(name);
    for (const flag of ['--tool-sets', '--read-only', '--allow', '--deny', '--log-level'])
      expect(stdout).toContain(flag);
  });
});

describe('commands a new user reaches for', () => {
  it('call explains the MCP spelling and tools hidden by the configuration', async () => {
    const mcp = await cli(['--config', configFile, 'call', 'EchoApi_GetItem', '--args', '{"item_id":"1"}']);
    expect(mcp.code).toBe(1);
    expect(JSON.parse(mcp.stdout).error).toMatchObject({
      code: 'unknown_tool',
      message:
        "No tool named 'EchoApi_GetItem': 'EchoApi_GetItem' is the MCP spelling; here tools are named 'EchoApi.GetItem'.",
    });
    const hidden = await cli([
      '--config',
      configFile,
      '--read-only',
      'call',
      'EchoApi.DeleteItem',
      '--args',
      '{"item_id":"1"}',
    ]);
    expect(JSON.parse(hidden.stdout).error.message).toBe(
      "The tool EchoApi.DeleteItem is loaded but hidden by this host's configuration (tools.readOnly).",
    );
    expect(upstream.requests).toHaveLength(0);
  });

  it('describe prints the parameters and the request-body schema of a mode tool', async () => {
    const r = await cli(['--config', configFile, 'describe', 'EchoApi.CreateItem']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('EchoApi.CreateItem  (over MCP: EchoApi_CreateItem)');
    expect(r.stdout).toContain('mode: "get_request_schema" | "execute"  [required]');
    expect(r.stdout).toContain('Request body (request_body, a JSON string, when mode is execute):');
    expect(r.stdout).toMatch(/^ {2}name: string {2}\[required\]/m);
    expect(r.stdout).toContain('The whole JSON Schema: toolhost describe EchoApi.CreateItem --schema');
    const full = await cli(['--config', configFile, 'describe', 'EchoApi.CreateItem', '--schema']);
    expect(full.stdout).toContain('    "required": [\n      "name"\n    ],');
    const plain = await cli(['--config', configFile, 'describe', 'EchoApi.GetItem']);
    expect(plain.stdout).toContain('item_id: string  [required]');
    expect(plain.stdout).not.toContain('Request body');
  });

  it('describe takes the name as MCP spells it, and sums up a large body in a screenful', async () => {
    const mcp = await cli(['--config', configFile, 'describe', 'EchoApi_GetItem']);
    expect(mcp.code).toBe(0);
    expect(mcp.stdout).toContain('EchoApi.GetItem  (over MCP: EchoApi_GetItem)');
    const big = await cli(['--plugins', '@toolhost/plugin-grid', 'describe', 'GridApi_UpdateGridRecords']);
    expect(big.code).toBe(0);
    expect(big.stdout.split('\n').length).toBeLessThan(80);
    const whole = await cli([
      '--plugins',
      '@toolhost/plugin-grid',
      'describe',
      'GridApi_UpdateGridRecords',
      '--schema',
    ]);
    expect(whole.stdout.split('\n').length).toBeGreaterThan(big.stdout.split('\n').length);
  });

  it('describe lists each shape of a body that is one of several, its required fields and their types', async () => {
    const r = await cli([
      '--plugins',
      '@toolhost/plugin-cdp-pipelines',
      'describe',
      'CdpPipelinesApi.TrackUserEvent',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('one of 3 shapes, each with its required fields, then its optional ones:');
    expect(r.stdout).toMatch(
      /^ {2}1\. type: "track", userId: string, event: string; optional: context, .*properties$/m,
    );
    expect(r.stdout).toMatch(/^ {2}2\. type: "track", anonymousId: string, event: string; optional: /m);
    // Filled in by the API, not written by the caller.
    expect(r.stdout).not.toMatch(/receivedAt|version/);
    expect(r.stdout).not.toMatch(/^ {2}any$/m);
    // A body of one shape alone is that shape's fields (it printed nothing).
    const form = await cli([
      '--plugins',
      '@toolhost/plugin-crm-marketing',
      'describe',
      'CrmMarketingApi.CreateMarketingForm',
    ]);
    expect(form.stdout).toMatch(/^ {2}archived: boolean {2}\[required\]$/m);
    expect(form.stdout).not.toMatch(/shapes, each|^ {2}1\. /m);
  });

  it('doctor says which credentials are missing, without values, and exits 1 until they are set', async () => {
    const missing = await cli(['--config', configFile, 'doctor']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`Config: ${configFile}`);
    expect(missing.stdout).toContain('toolhost-plugin-echo@1.2.3: EchoApi (contract 2.3)');
    expect(missing.stdout).toContain('EchoApi (3 tools): NOT READY');
    expect(missing.stdout).toContain('missing: auth provider echo-auth: set ECHO_AUTH_TOKEN');
    expect(missing.stdout).toContain(
      'missing: secret ECHO_KEY: set the environment variable ECHO_KEY, or secrets.ECHO_KEY in the config file',
    );
    const ready = await cli(['--config', configFile, 'doctor', '--live'], {
      ECHO_AUTH_TOKEN: 'tok-doctor-secret',
      ECHO_KEY: 'key-doctor-secret',
    });
    expect(ready.code).toBe(0);
    expect(ready.stdout).toContain('EchoApi (3 tools): ready');
    expect(ready.stdout).toContain('ok: auth provider echo-auth: static token set in ECHO_AUTH_TOKEN');
    expect(ready.stdout).toContain('Everything is ready.');
    expect(ready.stdout).not.toContain('tok-doctor-secret');
    expect(ready.stdout).not.toContain('key-doctor-secret');
  });

  it('--tool-sets with a vendor name suggests its tool sets', async () => {
    const r = await cli(['--plugins', '@toolhost/plugin-grid', '--tool-sets', 'Airtable', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "'Airtable' is not a loaded tool set (loaded: GridApi). Airtable is a vendor: did you mean GridApi?",
    );
  });

  it('list piped into a reader that stops early ends quietly', async () => {
    const child = spawn(process.execPath, [hostCliPath(), '--plugins', '@toolhost/plugin-grid', 'list'], {
      cwd: fixtureApp,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    // Read one chunk, then close the pipe, as `| head -1` does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('serve says at start which tool sets cannot be called yet, and pretty-prints on request', async () => {
    const child = spawn(process.execPath, [hostCliPath(), '--config', configFile, 'serve', '--stdio'], {
      cwd: fixtureApp,
      env: { PATH: process.env.PATH, TOOLHOST_LOG_FORMAT: 'pretty', ECHO_AUTH_TOKEN: 't' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    // A wait for the start, not a bound on it: a start takes seconds on 2 cores others load.
    await expect.poll(() => stderr, { timeout: 30_000 }).toContain('serving on stdio');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toContain('secret ECHO_KEY missing for EchoApi');
    expect(stderr).toContain('secret ECHO_KEY');
    expect(stderr).not.toContain('auth provider echo-auth');
    // A person's format: a level word and the message, not a JSON object per line.
    expect(stderr).toMatch(/WARN.*secret ECHO_KEY missing for EchoApi/);
    expect(stderr.trimStart().startsWith('{')).toBe(false);
  });

  it('warns once about a credential several tool sets share, naming them all', async () => {
    const child = spawn(
      process.execPath,
      [
        hostCliPath(),
        '--plugins',
        '@toolhost/plugin-crm-events,@toolhost/plugin-crm-marketing',
        'serve',
        '--stdio',
      ],
      {
        cwd: fixtureApp,
        env: { PATH: process.env.PATH, TOOLHOST_LOG_FORMAT: 'json' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    await expect.poll(() => stderr, { timeout: 30_000 }).toContain('serving on stdio');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('close', resolve));
    const warnings = stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; toolSets?: string[] })
      .filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      msg: 'auth provider crm-auth-provider missing for CrmEventsApi, CrmMarketingApi',
      toolSets: ['CrmEventsApi', 'CrmMarketingApi'],
    });
  });

  it('logs a call as one line on a terminal, and a failed one as a warning', async () => {
    upstream.respond(() => ({ status: 500, body: { message: 'down' } }));
    const failed = await cli(
      ['--config', configFile, 'call', 'EchoApi.GetItem', '--args', '{"item_id":"i1"}'],
      { ECHO_AUTH_TOKEN: 't', TOOLHOST_LOG_FORMAT: 'pretty' },
    );
    upstream.respond(() => ({ status: 200, body: { ok: true } }));
    const ok = await cli(['--config', configFile, 'call', 'EchoApi.GetItem', '--args', '{"item_id":"i1"}'], {
      ECHO_AUTH_TOKEN: 't',
      TOOLHOST_LOG_FORMAT: 'pretty',
    });
    const plain = stripVTControlCharacters;
    const failedLines = plain(failed.stderr)
      .split('\n')
      .filter((l) => l.includes('tool call'));
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0]).toMatch(
      /WARN.*tool call failed.*"tool":"EchoApi.GetItem".*"error":"upstream_error"/,
    );
    const okLines = plain(ok.stderr)
      .split('\n')
      .filter((l) => l.includes('tool call'));
    expect(okLines).toHaveLength(1);
    expect(okLines[0]).toMatch(/INFO.*tool call.*"tool":"EchoApi.GetItem".*"status":200/);
    expect(plain(ok.stderr)).not.toMatch(/^\s+tool:/m);
  });
});
