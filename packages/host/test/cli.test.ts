import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../src/testing/recording-upstream.js';
import { hostCliPath } from '../src/testing/spawn-host.js';
import { fixtureApp } from './support.js';

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

function cli(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [hostCliPath(), ...args], {
    cwd: fixtureApp,
    env: { PATH: process.env.PATH, ...env },
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
}

describe('toolhost CLI', () => {
  it('prints help naming its commands', async () => {
    const { stdout } = await cli(['--help']);
    for (const word of ['serve', 'list', 'call', '--config']) expect(stdout).toContain(word);
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
  });

  it('names the offending key of an invalid config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-cli-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tools: { alow: ['*'] } }));
    const r = await cli(['--config', bad, 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown key 'tools\.alow'/);
  });

  it('refuses a catalog mode other than static or dynamic, from the flag or the environment', async () => {
    const flag = await cli(['--config', configFile, 'serve', '--stdio', '--catalog', 'lazy']);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toMatch(/--catalog.*expected static or dynamic/);
    const env = await cli(['--config', configFile, 'serve', '--stdio'], { TOOLHOST_CATALOG: 'lazy' });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/mcp\.catalog/);
  });
});
