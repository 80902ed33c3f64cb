import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { fixtureApp } from './support.js';

// SIGTERM to a host serving stdio with ten calls at the upstream: each call is answered, with its
// result or `cancelled`, before the host exits. Closing the MCP server aborts the requests it has
// not answered yet, so the answers of the calls that ended last (all of them, when the grace
// period ran out) were dropped.

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let upstream: RecordingUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  for (let i = 0; i < ms / 25 && !check(); i += 1) await new Promise((r) => setTimeout(r, 25));
}

/** The host on stdio, ten calls in flight, SIGTERM: what each call was answered, and the exit code. */
async function tenCallsThenSigterm(era: 'legacy' | 'modern', shutdownGraceSeconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-stdio-shutdown-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream!.url } },
      engine: { maxConcurrentRequestsPerUpstream: 64 },
      shutdownGraceSeconds,
    }),
  );
  const child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--stdio'], {
    cwd: fixtureApp,
    env: { PATH: process.env.PATH, ECHO_AUTH_TOKEN: 'tok' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const answers = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map(
        (l) => JSON.parse(l) as { id: number; result?: { structuredContent?: { error?: { code: string } } } },
      );
  if (era === 'legacy') {
    const clientInfo = { name: 't', version: '0' };
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
    });
    await until(() => answers().some((a) => a.id === 1));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  for (let i = 0; i < 10; i += 1) {
    const params = { name: 'EchoApi_GetItem', arguments: { item_id: `i${i}` } };
    send({
      jsonrpc: '2.0',
      id: 100 + i,
      method: 'tools/call',
      params: era === 'modern' ? { ...params, _meta: MODERN_META } : params,
    });
  }
  await until(() => upstream!.requests.length === 10);
  child.kill('SIGTERM');
  const code = await exited;
  const calls = answers().filter((a) => a.id >= 100);
  return {
    code,
    answered: calls.map((a) => a.id).sort(),
    outcomes: new Set(calls.map((a) => a.result?.structuredContent?.error?.code ?? 'ok')),
  };
}

const ids = Array.from({ length: 10 }, (_, i) => 100 + i);

describe.each(['legacy', 'modern'] as const)('stdio shutdown (%s era)', (era) => {
  it('answers every call that finishes within the grace period', async () => {
    upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true }, delayMs: 800 }));
    const { code, answered, outcomes } = await tenCallsThenSigterm(era, 10);
    expect(answered).toEqual(ids);
    expect(outcomes).toEqual(new Set(['ok']));
    expect(code).toBe(0);
  });

  it('answers cancelled for every call still running when the grace period ends', async () => {
    upstream = await startRecordingUpstream(() => new Promise(() => {}));
    const { code, answered, outcomes } = await tenCallsThenSigterm(era, 1);
    expect(answered).toEqual(ids);
    expect(outcomes).toEqual(new Set(['cancelled']));
    expect(code).toBe(0);
  });
});

describe('a stdio host whose client closes stdin', () => {
  it('exits once every answer is out, read after the close by a client that had stopped reading', async () => {
    upstream = await startRecordingUpstream(() => ({ status: 200, body: { blob: 'x'.repeat(60_000) } }));
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-stdio-close-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } }),
    );
    const child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--stdio'], {
      cwd: fixtureApp,
      env: { PATH: process.env.PATH, ECHO_AUTH_TOKEN: 'tok' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    for (let i = 0; i < 10; i += 1) {
      const params = { name: 'EchoApi_GetItem', arguments: { item_id: `i${i}` }, _meta: MODERN_META };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params })}\n`);
    }
    let log = '';
    child.stderr.on('data', (c: Buffer) => {
      log += c.toString();
    });
    // Answered while nobody reads: most of the answers wait in the host for the pipe. A call's
    // log line is written once its answer is on its way; a fixed pause ended stdin before a
    // loaded machine had answered, and the calls still running were (rightly) aborted.
    await until(() => (log.match(/"msg":"tool call"/g) ?? []).length === 10, 30_000);
    child.stdin.end();
    let out = '';
    for await (const chunk of child.stdout) out += String(chunk);
    const answered = out
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(answered.sort()).toEqual(ids);
    expect(await exited).toBe(0);
  });
});
