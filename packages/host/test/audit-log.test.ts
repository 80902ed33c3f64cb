import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ToolDeclaration } from '@toolhost/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  heldAnswers,
  type RecordingUpstream,
  startRecordingUpstream,
} from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { AccessTokens } from '../src/auth/access-tokens.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { cli, fixtureApp, inlinePlugin, jsonLines } from './support.js';
import { getThingTool, mcpClient, WRITE_KEY, writeTools } from './write-support.js';

// The operator's audit log: one JSON line per tool call and per refused request, with who,
// which client, which tool, the outcome and the upstream status; never arguments or bodies
// unless asked.
const ALICE = 'alice-audit-token-0123456789';
const BOB = 'bob-audit-token-0123456789xx';
const SECRET_ARGUMENT = 'argument-value-for-no-log';
const SECRET_BODY = 'body-value-for-no-log';

const tools: ToolDeclaration[] = [...writeTools, getThingTool()];

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
let auditFile: string;

const auditLines = (file = auditFile) => jsonLines(file);
const last = (file?: string) => auditLines(file).at(-1)!;

async function connect(
  token: string,
  elicit?: 'decline',
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'audit-client', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (elicit) client.setRequestHandler('elicitation/create', async () => ({ action: elicit }));
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  auditFile = join(mkdtempSync(join(tmpdir(), 'toolhost-audit-')), 'logs', 'audit.jsonl');
  host = await createHost(
    {
      toolSets: { WriteApi: { baseUrl: upstream.url } },
      tools: { confirmWrites: true, previewTtlSeconds: 1 },
      audit: { log: auditFile },
    },
    { plugins: [inlinePlugin('WriteApi', tools)], env: { WRITE_KEY } },
  );
  server = await serveHttp(host, { port: 0, accessTokens: new AccessTokens({ alice: ALICE, bob: BOB }) });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: { secret: SECRET_BODY } }));
});

describe('the audit log', () => {
  it('has a line per tool call: time, replica, user, client, tool, outcome, upstream status; no arguments or body', async () => {
    const { client } = await connect(ALICE);
    await client.callTool({ name: 'WriteApi_GetThing', arguments: { id: SECRET_ARGUMENT } });
    const line = last();
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      replica: `${hostname()}:${process.pid}`,
      event: 'tool_call',
      user: 'alice',
      client: 'audit-client',
      tool: 'WriteApi.GetThing',
      outcome: 'ok',
      status: 200,
    });
    const text = readFileSync(auditFile, 'utf8');
    expect(text).not.toContain(SECRET_ARGUMENT);
    expect(text).not.toContain(SECRET_BODY);
    expect(text).not.toContain(ALICE);
    await client.close();
  });

  it('has a line for a request without a valid access token', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(last()).toMatchObject({ event: 'refusal', outcome: 'unauthenticated' });
    expect(last()).not.toHaveProperty('user');
  });

  it("has a line for a request on another user's session, naming the user who sent it", async () => {
    const { client, transport } = await connect(ALICE);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${BOB}`,
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(403);
    expect(last()).toMatchObject({ event: 'refusal', outcome: 'another_users_session', user: 'bob' });
    expect(JSON.stringify(last())).not.toContain(transport.sessionId!);
    await client.close();
  });

  it('has a line for a write the person declined, told apart from a cancelled call', async () => {
    const { client } = await connect(ALICE, 'decline');
    const result = (await client.callTool({
      name: 'WriteApi_UpdateThing',
      arguments: { id: 'a', title: 'T' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(upstream.requests).toHaveLength(0);
    expect(last()).toMatchObject({
      event: 'tool_call',
      user: 'alice',
      tool: 'WriteApi.UpdateThing',
      outcome: 'confirmation_declined',
    });
    await client.close();
  });

  it('has a line for a call the upstream rate-limited, with its status', async () => {
    upstream.respond(() => ({ status: 429, body: { error: 'slow down' } }));
    const { client } = await connect(BOB);
    await client.callTool({ name: 'WriteApi_GetThing', arguments: { id: 'x' } });
    expect(last()).toMatchObject({
      event: 'tool_call',
      user: 'bob',
      tool: 'WriteApi.GetThing',
      outcome: 'upstream_rate_limited',
      status: 429,
    });
    await client.close();
  });

  it('has a line for an expired preview applied', async () => {
    const { client } = await connect(ALICE);
    const preview = (await client.callTool({
      name: 'preview_tool_call',
      arguments: { name: 'WriteApi_UpdateThing', arguments: { id: 'a', title: 'T' } },
    })) as CallToolResult;
    expect(last()).toMatchObject({
      tool: 'preview_tool_call',
      target: 'WriteApi.UpdateThing',
      outcome: 'ok',
    });
    const id = JSON.parse((preview.content[0] as { text: string }).text).preview_id as string;
    await new Promise((r) => setTimeout(r, 1100));
    await client.callTool({ name: 'apply_preview', arguments: { preview_id: id } });
    expect(last()).toMatchObject({ event: 'tool_call', tool: 'apply_preview', outcome: 'preview_expired' });
    expect(upstream.requests).toHaveLength(0);
    await client.close();
  });

  it('has a line for an unknown tool and for a host tool refused for its arguments', async () => {
    const { client } = await connect(ALICE);
    await expect(client.callTool({ name: 'WriteApi_Nope', arguments: {} })).rejects.toThrow(/No tool named/);
    expect(last()).toMatchObject({ tool: 'WriteApi_Nope', outcome: 'unknown_tool' });
    await client.callTool({ name: 'apply_preview', arguments: {} });
    expect(last()).toMatchObject({ tool: 'apply_preview', outcome: 'invalid_argument' });
    await client.close();
  });

  it('has a line for a session refused at the cap, every session being busy', async () => {
    const capped = await serveHttp(host, {
      port: 0,
      maxSessionsPerUser: 1,
      accessTokens: new AccessTokens({ alice: ALICE }),
    });
    // Held until the second session has been refused: a fixed delay could end first on a loaded machine.
    const held = heldAnswers({ status: 200, body: {} });
    upstream.respond(held.responder);
    const first = new Client({ name: 'audit-client', version: '1.0.0' });
    const headers = { authorization: `Bearer ${ALICE}` };
    await first.connect(new StreamableHTTPClientTransport(new URL(capped.url), { requestInit: { headers } }));
    const busy = first.callTool({ name: 'WriteApi_GetThing', arguments: { id: 'slow' } });
    for (let i = 0; i < 100 && upstream.requests.length === 0; i += 1)
      await new Promise((r) => setTimeout(r, 20));
    const second = new Client({ name: 'second-client', version: '1.0.0' });
    await expect(
      second.connect(new StreamableHTTPClientTransport(new URL(capped.url), { requestInit: { headers } })),
    ).rejects.toThrow(/Too many open sessions/);
    expect(last()).toMatchObject({
      event: 'refusal',
      outcome: 'too_many_sessions',
      user: 'alice',
      client: 'second-client',
    });
    held.release();
    await busy;
    await first.close();
    await capped.close();
  });

  it("writes the call's arguments only when the operator asks", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolhost-audit-')), 'audit.jsonl');
    const asked = await createHost(
      { toolSets: { WriteApi: { baseUrl: upstream.url } }, audit: { log: file, includeArguments: true } },
      { plugins: [inlinePlugin('WriteApi', tools)], env: { WRITE_KEY } },
    );
    const client = await mcpClient(asked, { userId: 'carol' });
    await client.callTool({ name: 'WriteApi_GetThing', arguments: { id: SECRET_ARGUMENT } });
    expect(last(file)).toMatchObject({ user: 'carol', arguments: { id: SECRET_ARGUMENT }, outcome: 'ok' });
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET_BODY);
    await client.close();
    await asked.close();
  });

  it('has the code of a search_tools error, which its result carries as text only', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolhost-audit-')), 'audit.jsonl');
    const dynamic = await createHost(
      {
        toolSets: { WriteApi: { baseUrl: upstream.url } },
        mcp: { catalog: 'dynamic' },
        audit: { log: file },
      },
      { plugins: [inlinePlugin('WriteApi', tools)], env: { WRITE_KEY } },
    );
    const client = await mcpClient(dynamic);
    // Refused by the search itself, then by the schema search_tools lists.
    for (const args of [{ query: ' ' }, { query: 'things', limit: 0 }]) {
      const result = (await client.callTool({ name: 'search_tools', arguments: args })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(last(file)).toMatchObject({ tool: 'search_tools', outcome: 'invalid_argument' });
    }
    await client.close();
    await dynamic.close();
  });
});

describe('the audit log on standard output', () => {
  it('is written there by `serve --http` with TOOLHOST_AUDIT_LOG=stdout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-audit-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: upstream.url } } }),
    );
    const child = spawn(process.execPath, [hostCliPath(), '--config', config, 'serve', '--http', '0'], {
      cwd: fixtureApp,
      env: {
        PATH: process.env.PATH ?? '',
        TOOLHOST_AUDIT_LOG: 'stdout',
        ECHO_AUTH_TOKEN: 'static-token-0123456789',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          const m = /"url":"([^"]+)"/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`host exited ${code}: ${stderr}`)));
      });
      const client = new Client({ name: 'stdout-audit', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: SECRET_ARGUMENT } });
      await client.close();
      for (let i = 0; i < 100 && !stdout.includes('\n'); i += 1) await new Promise((r) => setTimeout(r, 20));
      const line = JSON.parse(stdout.split('\n')[0]!);
      expect(line).toMatchObject({
        event: 'tool_call',
        client: 'stdout-audit',
        tool: 'EchoApi.GetItem',
        outcome: 'ok',
        status: 200,
      });
      expect(line.replica).toMatch(/:\d+$/);
      expect(stdout).not.toContain(SECRET_ARGUMENT);
    } finally {
      child.kill();
    }
  });

  it('is refused at start with the stdio transport, whose channel stdout is', async () => {
    const run = await cli(['--plugins', 'toolhost-plugin-echo', 'serve'], { TOOLHOST_AUDIT_LOG: 'stdout' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/audit log cannot go to stdout with the stdio transport/);
  });
});
