import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RequestPreview } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import type { Host } from '../src/host.js';
import { serveHttpHost } from './served-http-host.js';
import { fixtureApp } from './support.js';
import { mcpClient, textOf, WRITE_KEY, writeHost } from './write-support.js';

let upstream: RecordingUpstream;
let host: Host;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await writeHost(upstream.url, { tools: { confirmWrites: true } });
});
afterAll(async () => {
  await host.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const update = { id: 'thing-1', notify: false, title: 'Renamed' };
const formCapabilities = { elicitation: { form: {} } };
const formClient = { capabilities: formCapabilities };

/** Answers every elicitation as told, keeping the messages the person was shown. */
function person(client: Client, answer: ElicitResult): string[] {
  const shown: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    shown.push((request.params as { message: string }).message);
    return answer;
  });
  return shown;
}

describe('confirmation by a person (tools.confirmWrites)', () => {
  it('shows the exact request, credential redacted, and sends it only once the person agrees', async () => {
    const client = await mcpClient(host, { capabilities: formCapabilities });
    const shown = person(client, { action: 'accept', content: { send: true } });
    const result = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain(`PATCH ${upstream.url}/things/thing-1?notify=false`);
    expect(shown[0]).toContain('authorization: [redacted]');
    expect(shown[0]).toContain('"title": "Renamed"');
    expect(shown[0]).not.toContain(WRITE_KEY);
  });

  it('shows characters that would not show (a right-to-left override) as escapes', async () => {
    const client = await mcpClient(host, { capabilities: formCapabilities });
    const shown = person(client, { action: 'decline' });
    // Displayed raw, U+202E has "moc.live@rekcatta" read as "attacker@evil.com".
    const title = 'Renamed\u202e moc.live@rekcatta';
    await client.callTool({ name: 'WriteApi_UpdateThing', arguments: { ...update, title } });
    expect(shown[0]).toContain('"title": "Renamed\\u202e moc.live@rekcatta"');
    expect(shown[0]).not.toContain('\u202e');
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers cancelled and sends nothing when the person declines (or does not tick send)', async () => {
    for (const answer of [
      { action: 'decline' },
      { action: 'accept', content: { send: false } },
    ] as ElicitResult[]) {
      const client = await mcpClient(host, { capabilities: formCapabilities });
      person(client, answer);
      const result = await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update });
      expect(textOf(result)).toMatchObject({ error: { code: 'cancelled' } });
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('sends once per confirmationId (an embedder asking by round trips): the same id again answers the first outcome', async () => {
    const agreed = { confirm: async () => true, confirmationId: 'confirmation-1' };
    const first = await host.callTool('WriteApi.UpdateThing', update, agreed);
    expect(first.ok).toBe(true);
    expect(await host.callTool('WriteApi.UpdateThing', update, agreed)).toEqual(first);
    expect(upstream.requests).toHaveLength(1);
    // Declined, it sent nothing: the same confirmation may still send, once.
    const second = { ...agreed, confirmationId: 'confirmation-2' };
    const declined = await host.callTool('WriteApi.UpdateThing', update, {
      ...second,
      confirm: async () => false,
    });
    expect(declined.ok ? undefined : declined.error.code).toBe('cancelled');
    expect((await host.callTool('WriteApi.UpdateThing', update, second)).ok).toBe(true);
    expect((await host.callTool('WriteApi.UpdateThing', update, second)).ok).toBe(true);
    expect(upstream.requests).toHaveLength(2);
  });

  it('does not let an embedder’s confirm that never answers, or throws, hold the call or close', async () => {
    const silent = async () => new Promise<boolean>(() => {});
    const caller = new AbortController();
    const held = host.callTool('WriteApi.UpdateThing', update, { confirm: silent, signal: caller.signal });
    caller.abort();
    expect(await held).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    const throwing = async (): Promise<boolean> => {
      throw new Error('the confirmation dialog crashed');
    };
    expect(await host.callTool('WriteApi.UpdateThing', update, { confirm: throwing })).toMatchObject({
      ok: false,
      error: { code: 'cancelled' },
    });
    const own = await writeHost(upstream.url, { tools: { confirmWrites: true } });
    const pending = own.callTool('WriteApi.UpdateThing', update, { confirm: silent });
    await own.close(50);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('never holds a read-only tool', async () => {
    const client = await mcpClient(host, { capabilities: formCapabilities });
    const shown = person(client, { action: 'decline' });
    const result = await client.callTool({ name: 'WriteApi_ListThings', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(shown).toHaveLength(0);
    expect(upstream.requests).toHaveLength(1);
  });

  it('gives a client without elicitation the preview, to apply once the person agrees', async () => {
    const client = await mcpClient(host);
    const held = textOf(await client.callTool({ name: 'WriteApi_UpdateThing', arguments: update })) as {
      error: { code: string; preview: RequestPreview };
    };
    expect(held.error.code).toBe('confirmation_required');
    expect(held.error.preview.request).toMatchObject({
      method: 'PATCH',
      headers: { authorization: '[redacted]' },
    });
    expect(upstream.requests).toHaveLength(0);
    const applied = await client.callTool({
      name: 'apply_preview',
      arguments: { preview_id: held.error.preview.preview_id },
    });
    expect(applied.isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('confirmation over the transports', () => {
  const config = () => ({
    plugins: ['toolhost-plugin-echo'],
    toolSets: { EchoApi: { baseUrl: upstream.url } },
    tools: { confirmWrites: true },
  });
  const create = { mode: 'execute', request_body: JSON.stringify({ name: 'n' }) };

  it('asks over stdio (--confirm-writes), and a decline sends nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-confirm-'));
    const file = join(dir, 'toolhost.config.json');
    writeFileSync(file, JSON.stringify({ ...config(), tools: {} }));
    const client = new Client({ name: 'confirm-stdio', version: '0' }, formClient);
    const shown = person(client, { action: 'decline' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [hostCliPath(), '--config', file, '--confirm-writes', 'serve', '--stdio'],
        env: { PATH: process.env.PATH ?? '', ECHO_KEY: 'echo-key-0123456789' },
        cwd: fixtureApp,
        // Its log is not what these check; inherited, it lands in the test run's output.
        stderr: 'pipe',
      }),
    );
    const result = await client.callTool({ name: 'EchoApi_CreateItem', arguments: create });
    expect(textOf(result)).toMatchObject({ error: { code: 'cancelled' } });
    expect(shown[0]).toContain(`POST ${upstream.url}/items`);
    expect(upstream.requests).toHaveLength(0);
    await client.close();
  });

  // `script` gives the command a terminal, as a person running it has; util-linux's, on Linux.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)(
    'asks the person at the terminal in `toolhost call`, and sends once they say y',
    async () => {
      // It answered confirmation_required naming apply_preview, which the command does not have.
      const dir = mkdtempSync(join(tmpdir(), 'toolhost-confirm-'));
      const file = join(dir, 'toolhost.config.json');
      writeFileSync(file, JSON.stringify(config()));
      const argv = [process.execPath, hostCliPath(), '--config', file, '--log-level', 'silent', 'call'];
      const command = [...argv, 'EchoApi.CreateItem', '--args', JSON.stringify(create)]
        .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      for (const [typed, sent] of [
        ['n', 0],
        ['y', 1],
      ] as const) {
        upstream.reset();
        // Not spawnSync: the upstream answers from this process's event loop.
        const run = spawn('script', ['-qec', command, '/dev/null'], {
          cwd: fixtureApp,
          env: { PATH: process.env.PATH ?? '', ECHO_KEY: 'echo-key-0123456789' },
        });
        let shown = '';
        run.stdout.on('data', (c: Buffer) => {
          shown += c.toString();
        });
        run.stdin.end(`${typed}\n`);
        await once(run, 'close');
        expect(shown).toContain('EchoApi.CreateItem would send:');
        expect(shown).toContain(`"url": "${upstream.url}/items"`);
        expect(shown).toContain(typed === 'y' ? '"ok": true' : '"code": "cancelled"');
        expect(upstream.requests, typed).toHaveLength(sent);
      }
    },
  );

  it('refuses a write in a piped `toolhost call`, saying nobody can be asked there, and sends nothing', async () => {
    // It answered confirmation_required naming apply_preview, which the command does not have.
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-confirm-'));
    const file = join(dir, 'toolhost.config.json');
    writeFileSync(file, JSON.stringify(config()));
    upstream.reset();
    const run = spawn(
      process.execPath,
      [hostCliPath(), '--config', file, '--log-level', 'silent', 'call', 'EchoApi.CreateItem'].concat([
        '--args',
        JSON.stringify(create),
      ]),
      { cwd: fixtureApp, env: { PATH: process.env.PATH ?? '', ECHO_KEY: 'echo-key-0123456789' } },
    );
    let printed = '';
    run.stdout.on('data', (c: Buffer) => {
      printed += c.toString();
    });
    run.stdin.end();
    const [code] = await once(run, 'close');
    const outcome = JSON.parse(printed) as { ok: boolean; error: { code: string; message: string } };
    expect(outcome).toMatchObject({ ok: false, error: { code: 'confirmation_required' } });
    expect(outcome.error.message).toMatch(/not at a terminal.*nothing was sent/);
    expect(outcome.error.message).not.toMatch(/apply_preview/);
    expect(outcome.error).not.toHaveProperty('preview');
    expect(code).toBe(1);
    expect(upstream.requests).toHaveLength(0);
  });

  it('asks over stdio on MCP 2026-07-28 too (input_required), from the capabilities the request declares', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-confirm-'));
    const file = join(dir, 'toolhost.config.json');
    writeFileSync(file, JSON.stringify(config()));
    const client = new Client(
      { name: 'confirm-stdio-modern', version: '0' },
      { ...formClient, versionNegotiation: { mode: 'auto' } },
    );
    const shown = person(client, { action: 'decline' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [hostCliPath(), '--config', file, 'serve', '--stdio'],
        env: { PATH: process.env.PATH ?? '', ECHO_KEY: 'echo-key-0123456789' },
        cwd: fixtureApp,
        // Its log is not what these check; inherited, it lands in the test run's output.
        stderr: 'pipe',
      }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    const result = await client.callTool({ name: 'EchoApi_CreateItem', arguments: create });
    expect(textOf(result)).toMatchObject({ error: { code: 'cancelled' } });
    expect(shown[0]).toContain(`POST ${upstream.url}/items`);
    expect(upstream.requests).toHaveLength(0);
    await client.close();
  });

  it('asks over Streamable HTTP, on the call’s own stream, and sends once agreed', async () => {
    const served = await serveHttpHost(config(), { ECHO_KEY: 'echo-key-0123456789' });
    const client = new Client({ name: 'confirm-http', version: '0' }, formClient);
    const shown = person(client, { action: 'accept', content: { send: true } });
    // The form of each tools/call POST's answer: the question must come on that POST's stream.
    const answeredAs: (string | null)[] = [];
    const fetchNoting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"'))
        answeredAs.push(res.headers.get('content-type'));
      return res;
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { fetch: fetchNoting }));
    const result = await client.callTool({ name: 'EchoApi_CreateItem', arguments: create });
    expect(result.isError).toBeFalsy();
    expect(shown).toHaveLength(1);
    expect(answeredAs).toEqual(['text/event-stream']);
    expect(upstream.requests).toHaveLength(1);
    await client.close();
    await served.close();
  });
});
