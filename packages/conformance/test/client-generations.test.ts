import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { hostCliPath, type RecordingUpstream, spawnHost, startRecordingUpstream } from '@toolhost/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Clients in use today come from both lines of the TypeScript SDK: the v1 line (1.x, which
// opens every connection with `initialize`) and the v2 line, which asks for MCP 2026-07-28
// first. Both must list and call the host's tools over stdio, as they do over HTTP.
const TOOL = 'CrmEventsApi_ListEventTypes';
// The static catalog, as the test lists the tool: with every plugin installed `auto` would list
// the dynamic one.
const config = (upstream: string) => ({
  toolSets: { CrmEventsApi: { baseUrl: upstream } },
  mcp: { catalog: 'static' as const },
});
const env = { CRM_AUTH_PROVIDER_TOKEN: 'generations-token-1' };

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { results: ['a'] } }));
});
afterAll(() => upstream.close());

/** The answer's text, parsed: the upstream's body, as the host passes it on. */
function bodyOf(result: object): unknown {
  const { content, isError } = result as { content?: { type: string; text: string }[]; isError?: boolean };
  expect(isError).toBeFalsy();
  const [first] = content ?? [];
  return JSON.parse(first!.text);
}

describe('both SDK lines as stdio clients of the host', () => {
  it('the v1 client (initialize) lists and calls a tool', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolhost-v1-')), 'toolhost.config.json');
    writeFileSync(file, JSON.stringify(config(upstream.url)));
    const client = new V1Client({ name: 'v1-client', version: '1.0.0' });
    await client.connect(
      new V1StdioTransport({
        command: process.execPath,
        args: [hostCliPath(), '--config', file, 'serve', '--stdio'],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'ignore',
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('toolhost');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain(TOOL);
      const before = upstream.requests.length;
      const result = await client.callTool({ name: TOOL, arguments: {} });
      expect(bodyOf(result)).toEqual({ results: ['a'] });
      expect(upstream.requests.slice(before)).toMatchObject([
        { method: 'GET', path: '/events/v3/events/event-types' },
      ]);
      expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer generations-token-1');
    } finally {
      await client.close();
    }
  }, 30_000);

  it('the v2 client (version negotiation auto) lists and calls the same tool on MCP 2026-07-28', async () => {
    const host = await spawnHost(config(upstream.url), { env, protocol: 'auto' });
    try {
      expect(host.client.getProtocolEra()).toBe('modern');
      expect((await host.client.listTools()).tools.map((t) => t.name)).toContain(TOOL);
      const before = upstream.requests.length;
      const result = await host.client.callTool({ name: TOOL, arguments: {} });
      expect(bodyOf(result)).toEqual({ results: ['a'] });
      expect(upstream.requests.slice(before)).toMatchObject([
        { method: 'GET', path: '/events/v3/events/event-types' },
      ]);
    } finally {
      await host.close();
    }
  }, 30_000);
});
