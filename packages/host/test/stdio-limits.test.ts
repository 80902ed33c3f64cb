import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { fixtureApp } from './support.js';

describe('stdio', () => {
  it('answers an error for a message over 10 MiB and keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-stdio-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ plugins: ['toolhost-plugin-echo'] }));
    const child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--stdio'], {
      cwd: fixtureApp,
      env: { PATH: process.env.PATH },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let logs = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      logs += c.toString();
    });
    child.stdin.on('error', () => {}); // EPIPE, should the host have exited
    let exitCode: number | null | undefined;
    child.once('exit', (code) => {
      exitCode = code;
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const answers = () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id?: unknown; error?: { message: string }; result?: unknown });
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 400 && !check(); i += 1) await new Promise((r) => setTimeout(r, 25));
    };

    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    await until(() => answers().some((a) => a.id === 1));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const huge = 'x'.repeat(11 * 1024 * 1024);
    // The SDK's client writes the id last, as here.
    child.stdin.write(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"EchoApi_GetItem","arguments":{"item_id":"${huge}"}},"id":5}\n`,
    );
    send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    await until(() => answers().some((a) => a.id === 6) || exitCode !== undefined);
    child.kill('SIGKILL');

    expect(exitCode, logs).toBeUndefined();
    const tooBig = answers().find((a) => a.id === 5);
    expect(tooBig?.error?.message).toMatch(/larger than/);
    expect(answers().find((a) => a.id === 6)?.result).toBeDefined();
    expect(logs).toMatch(/message too large/);
  });
});
