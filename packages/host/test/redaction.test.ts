import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { hostCliPath } from '../../testing/src/spawn-host.js';
import { createHost, type Host } from '../src/host.js';
import { type HttpServerHandle, serveHttp } from '../src/http/serve-http.js';
import { fixtureApp, inlinePlugin } from './support.js';

const TOKEN = 'bearer-token-abc/def+ghi=42';
const SECRET = 'basic-secret-0123456789';
const BASIC = Buffer.from(`${SECRET}:`).toString('base64');
const forms = [TOKEN, SECRET, BASIC, encodeURIComponent(TOKEN)];

let upstream: RecordingUpstream;
let host: Host;
let server: HttpServerHandle;
let client: Client;

/** An upstream that echoes what it received, as some do in their error bodies. */
const echoing =
  (status: number, asText = false) =>
  (req: { headers: Record<string, unknown>; rawPath: string }) =>
    asText
      ? { status, body: `rejected ${req.rawPath}; authorization was ${String(req.headers.authorization)}` }
      : {
          status,
          body: {
            message: 'echo',
            headers: req.headers,
            [String(req.headers.authorization)]: 'as a key too',
            nested: [{ seen: `token=${encodeURIComponent(String(req.headers.authorization).slice(7))}` }],
          },
        };

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  host = await createHost(
    { toolSets: { EchoBack: { baseUrl: upstream.url } } },
    {
      plugins: [
        inlinePlugin('EchoBack', [
          {
            name: 'WithToken',
            description: 'Bearer.',
            method: 'GET',
            path: '/token',
            auth: { kind: 'provider', provider: 'echo-back-auth', scopes: [] },
          },
          {
            name: 'WithBasic',
            description: 'Basic.',
            method: 'GET',
            path: '/basic',
            auth: { kind: 'secret', secret: 'ECHO_BASIC_KEY', scheme: 'basic-username' },
          },
        ]),
      ],
      env: { ECHO_BACK_AUTH_TOKEN: TOKEN, ECHO_BASIC_KEY: SECRET },
    },
  );
  server = await serveHttp(host, { port: 0 });
  client = new Client({ name: 'redaction', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
});
afterAll(async () => {
  await client.close();
  await server.close();
  await host.close();
  await upstream.close();
});

describe('credentials the host sent never come back in tool output', () => {
  for (const status of [200, 400, 401, 429, 500]) {
    for (const asText of [false, true]) {
      it(`redacts them from a ${status} ${asText ? 'text' : 'JSON'} body over MCP`, async () => {
        upstream.respond(echoing(status, asText));
        for (const name of ['EchoBack_WithToken', 'EchoBack_WithBasic']) {
          const result = JSON.stringify(await client.callTool({ name, arguments: {} }));
          expect(upstream.requests.at(-1)!.headers.authorization).toMatch(/^(Bearer|Basic) /);
          for (const form of forms) expect(result).not.toContain(form);
          expect(result).toContain('[redacted]');
        }
      });
    }
  }
});

describe('an answer nested too deep to walk', () => {
  // A few kilobytes of brackets are enough to exhaust the stack of every walk over a parsed
  // body (redaction, the bounded error body, storing an outcome), whatever the status.
  for (const status of [200, 500]) {
    it(`comes back as its text, redacted (${status})`, async () => {
      const depth = 5000;
      upstream.respond((req) => ({
        status,
        headers: { 'content-type': 'application/json' },
        body: `[${JSON.stringify(String(req.headers.authorization))},${'['.repeat(depth)}${']'.repeat(depth)}]`,
      }));
      const result = await client.callTool({ name: 'EchoBack_WithToken', arguments: {} });
      const text = JSON.stringify(result);
      expect(text).not.toContain('internal_error');
      expect(text).toContain('[[[[');
      expect(text).toContain('[redacted]');
      for (const form of forms) expect(text).not.toContain(form);
    });
  }
});

describe('only credentials of a safe length are looked for', () => {
  it('leaves an answer alone when the secret is shorter than 8 characters (`ok` stays `ok`)', async () => {
    const shortKey = await createHost(
      { toolSets: { EchoBack: { baseUrl: upstream.url } } },
      {
        plugins: [
          inlinePlugin('EchoBack', [
            {
              name: 'WithBasic',
              description: 'Basic.',
              method: 'GET',
              path: '/basic',
              auth: { kind: 'secret', secret: 'ECHO_BASIC_KEY', scheme: 'basic-username' },
            },
          ]),
        ],
        env: { ECHO_BASIC_KEY: 'k' },
      },
    );
    upstream.respond(() => ({ status: 200, body: { ok: true, note: 'kept as it was' } }));
    const outcome = await shortKey.callTool('EchoBack.WithBasic', {});
    await shortKey.close();
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from('k:').toString('base64')}`,
    );
    expect(outcome).toEqual({
      ok: true,
      kind: 'response',
      status: 200,
      body: { ok: true, note: 'kept as it was' },
    });
  });
});

describe('toolhost call', () => {
  it('prints no credential an upstream echoed', async () => {
    const echo = await startRecordingUpstream(echoing(401));
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-redact-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ plugins: ['toolhost-plugin-echo'], toolSets: { EchoApi: { baseUrl: echo.url } } }),
    );
    const r = await promisify(execFile)(
      process.execPath,
      [hostCliPath(), '--config', config, 'call', 'EchoApi.GetItem', '--args', '{"item_id":"i1"}'],
      { cwd: fixtureApp, env: { PATH: process.env.PATH, ECHO_AUTH_TOKEN: TOKEN } },
    ).catch((e: { stdout: string; stderr: string }) => e);
    await echo.close();
    expect(echo.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'upstream_error', status: 401 } });
    for (const form of forms) {
      expect(r.stdout).not.toContain(form);
      expect(r.stderr).not.toContain(form);
    }
  });
});
