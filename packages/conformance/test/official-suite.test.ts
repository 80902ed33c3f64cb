import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostCliPath } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginPackages } from '../src/plugins.js';

// The official MCP conformance suite against the real host over HTTP, with every plugin: the
// 2026-07-28 requirements (suite 0.2) and the 2025 suite (0.1.16). What does not apply to this
// server is listed, with reasons, in official/baseline-*.yaml; the suite itself fails the run on
// any other failure, and on a listed scenario that passes.
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
/** The suite reads files with `fs.globSync` (Node 22); the npm `node` package brings one. */
const node22 = join(dirname(require.resolve('node22/package.json')), 'bin', 'node');
const suiteCli = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');

let child: ChildProcess;
let url: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-official-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ plugins: pluginPackages() }));
  child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--http', '0'], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      logs += c.toString();
      const m = /"url":"([^"]+)"/.exec(logs);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`host exited ${code}: ${logs}`)));
  });
});
afterAll(() => {
  child?.kill('SIGTERM');
});

/** Runs the suite; its exit code, and its summary's figures. */
function runSuite(pkg: string, args: string[]) {
  const out = mkdtempSync(join(tmpdir(), 'toolhost-official-results-'));
  return new Promise<{ code: number; output: string; passed: number; failed: number }>((resolve) => {
    execFile(
      node22,
      [suiteCli(pkg), 'server', '--url', url, '-o', out, ...args],
      { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          output,
          passed: Number(total?.[1] ?? 0),
          failed: Number(total?.[2] ?? 0),
        });
      },
    );
  });
}

/** The summary and the baseline's verdict, for the failure message. */
const summaryOf = (output: string) => output.slice(Math.max(0, output.indexOf('=== SUMMARY ===')));

describe('the official MCP conformance suite against the host over HTTP', () => {
  it('2026-07-28 requirements (0.2): every scenario that applies passes', async () => {
    const run = await runSuite('@modelcontextprotocol/conformance', [
      '--requirements',
      '2026-07-28',
      '--expected-failures',
      join(here, '..', 'official', 'baseline-2026-07-28.yaml'),
    ]);
    expect(run.code, summaryOf(run.output)).toBe(0);
    expect(run.output).toMatch(/Baseline check passed/);
    expect(run.passed).toBeGreaterThan(100);
  });

  it('2025 suite (0.1.16): every scenario that applies passes', async () => {
    const run = await runSuite('mcp-conformance-0.1', [
      '--expected-failures',
      join(here, '..', 'official', 'baseline-2025.yaml'),
    ]);
    expect(run.code, summaryOf(run.output)).toBe(0);
    expect(run.output).toMatch(/Baseline check passed/);
    expect(run.passed).toBeGreaterThanOrEqual(7);
  });
});
