import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { type HttpHostProcess, jsonLines, postModernCall, spawnHttpHost } from './support.js';

// Hostile requests over the real HTTP transport, as raw JSON-RPC (no client library would send
// them): each answered as invalid params naming what was expected, never -32603; nothing sent
// upstream; the audit log bounded, one line each, owner-only.

let upstream: RecordingUpstream;
let host: HttpHostProcess;
let auditFile: string;
const headers: Record<string, string> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

async function post(body: string): Promise<{ status: number; answer: Record<string, unknown> }> {
  const r = await fetch(host.url, { method: 'POST', headers, body });
  const session = r.headers.get('mcp-session-id');
  if (session) headers['mcp-session-id'] = session;
  const text = await r.text();
  return { status: r.status, answer: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const call = (id: number, params: string) =>
  post(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`);
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const lastAudit = () => jsonLines(auditFile).at(-1)!;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  auditFile = join(mkdtempSync(join(tmpdir(), 'toolhost-audit-')), 'audit.log');
  // An audit file left world-readable by an earlier setup is made owner-only too.
  writeFileSync(auditFile, '', { mode: 0o644 });
  host = await spawnHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      audit: { log: auditFile, includeArguments: true },
    },
    { ECHO_AUTH_TOKEN: 'tok' },
  );
  const init = await post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        // A client name of 60 KiB (an initialize may be 64), with line separators in it.
        clientInfo: { name: `evil\u2028client\u0085${'x'.repeat(60 * 1024)}`, version: '0' },
      },
    }),
  );
  expect(init.status).toBe(200);
  headers['mcp-protocol-version'] = '2025-06-18';
  await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
}, 60_000);
afterAll(async () => {
  host.child.kill('SIGKILL');
  await upstream.close();
});

describe('hostile input over HTTP', () => {
  it('refuses arguments nested thousands of levels deep as invalid params, with an audit line', async () => {
    for (const [id, meta] of [
      [1, ''],
      [2, ',"_meta":{"toolhost/idempotencyKey":"k-1"}'],
    ] as const) {
      const { answer } = await call(
        id,
        `{"name":"EchoApi_GetItem","arguments":{"item_id":"i1","x":${nested(5000)}}${meta}}`,
      );
      expect(answer.error).toEqual({
        code: -32602,
        message: expect.stringMatching(
          /^Invalid params for tools\/call: params\.arguments .*nests more than 100 levels deep; expected at most 100/,
        ),
      });
      expect(lastAudit()).toMatchObject({
        event: 'tool_call',
        tool: 'EchoApi_GetItem',
        outcome: 'invalid_params',
      });
    }
    // Within the bound, nesting is the tool's business (here: a parameter it does not take).
    const { answer } = await call(
      3,
      `{"name":"EchoApi_GetItem","arguments":{"item_id":"i1","x":${nested(50)}}}`,
    );
    expect((answer.result as { isError: boolean }).isError).toBe(true);
    expect(upstream.requests).toEqual([]);
  });

  it('refuses a lone surrogate in a path value as invalid_argument naming the parameter', async () => {
    const { answer } = await call(4, '{"name":"EchoApi_GetItem","arguments":{"item_id":"a\\ud800b"}}');
    expect((answer.result as { structuredContent: unknown }).structuredContent).toEqual({
      error: {
        code: 'invalid_argument',
        parameter: 'item_id',
        retryable: false,
        message:
          "Parameter 'item_id' holds a lone surrogate (\\uD800 at position 1); expected well-formed Unicode text.",
      },
    });
    expect(upstream.requests).toEqual([]);
  });

  it('answers tools/call whose arguments are not an object (null among them) as invalid params naming them, on either era', async () => {
    const modern = (id: number, args: unknown) =>
      postModernCall(host.url, { id, name: 'EchoApi_GetItem', args });
    const cases = [
      [null, 'null'],
      [[{ item_id: 'i1' }], 'array'],
      ['{"item_id":"i1"}', 'string'],
    ] as const;
    for (const [i, [args, received]] of cases.entries()) {
      const error = {
        code: -32602,
        message: `Invalid params for tools/call: params.arguments: expected object, received ${received}.`,
      };
      const session = await call(20 + i, JSON.stringify({ name: 'EchoApi_GetItem', arguments: args }));
      expect(session.answer.error).toEqual(error);
      expect(lastAudit()).toMatchObject({ tool: 'EchoApi_GetItem', outcome: 'invalid_params' });
      const answered = await modern(30 + i, args);
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { error: unknown }).error).toEqual(error);
    }
    expect(upstream.requests).toEqual([]);
  });

  it('answers resources/read and tools/list with bad params as invalid params naming the field', async () => {
    const cases = [
      [
        'resources/read',
        '{"uri":5}',
        'Invalid params for resources/read: params.uri: expected string, received number.',
      ],
      [
        'resources/read',
        '{}',
        'Invalid params for resources/read: params.uri: expected string, received undefined.',
      ],
      [
        'tools/list',
        '{"cursor":5}',
        'Invalid params for tools/list: params.cursor: expected string, received number.',
      ],
    ] as const;
    for (const [i, [method, params, message]] of cases.entries()) {
      const { answer } = await post(
        `{"jsonrpc":"2.0","id":${10 + i},"method":"${method}","params":${params}}`,
      );
      expect(answer.error).toEqual({ code: -32602, message });
    }
  });

  it('keeps audit lines bounded, one line each, owner-only', async () => {
    await call(
      20,
      `{"name":"EchoApi_GetItem\\u2028x\\u0085","arguments":{"item_id":"i1","big":"${'y'.repeat(100_000)}"}}`,
    );
    const text = readFileSync(auditFile, 'utf8');
    expect(statSync(auditFile).mode & 0o777).toBe(0o600);
    expect(text).not.toMatch(/[\u2028\u2029\u0085]/);
    const lines = text.split('\n').filter(Boolean);
    for (const line of lines) expect(line.length).toBeLessThan(20_000);
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(last.client).toMatch(/^evil\u2028client\u0085x+…\[truncated: 61452 characters in all\]$/);
    expect(last.tool).toBe('EchoApi_GetItem\u2028x\u0085');
    expect(last.arguments).toMatch(/^\{"item_id":"i1","big":"y+…\[truncated: \d+ characters in all\]$/);
    expect(text).toContain('\\u2028');
  });
});
