import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordingUpstream, startRecordingUpstream } from '../../testing/src/recording-upstream.js';
import { createHost, type Host } from '../src/host.js';
import { createMcpServer } from '../src/mcp/create-mcp-server.js';
import { prepareMcpServingState } from '../src/mcp/serving-state.js';
import { capturedLogger, inlinePlugin } from './support.js';
import { WRITE_KEY, writeTools } from './write-support.js';

// The host's own tools (discovery and previews) check their arguments as plugin tools do:
// bounded, and refused with invalid_argument naming the field, before any work is done.
let upstream: RecordingUpstream;
let host: Host;
let client: Client;
const log = capturedLogger('info');

async function connect(h: Host): Promise<Client> {
  const server = createMcpServer(h, prepareMcpServingState(h));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const c = new Client({ name: 'host-tool-arguments', version: '0' });
  await server.connect(a);
  await c.connect(b);
  return c;
}

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ status: 200, body: { ok: true } }));
  host = await createHost(
    { mcp: { catalog: 'dynamic' }, toolSets: { WriteApi: { baseUrl: upstream.url } } },
    {
      plugins: [inlinePlugin('WriteApi', writeTools)],
      env: { WRITE_KEY },
      logger: log.logger,
    },
  );
  client = await connect(host);
});
afterAll(async () => {
  await client.close();
  await host.close();
  await upstream.close();
});

async function refusal(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  const text = (result.content[0] as { text: string }).text;
  return (JSON.parse(text) as { error: { code: string; parameter?: string; message: string } }).error;
}

describe("the host's own tools' arguments", () => {
  it('call_tool and preview_tool_call without a name: invalid_argument naming it, not a JS error', async () => {
    for (const tool of ['call_tool', 'preview_tool_call']) {
      const error = await refusal(tool, { arguments: { id: 'x' } });
      expect(error).toMatchObject({ code: 'invalid_argument', parameter: 'name' });
      expect(error.message).toMatch(/'name' is required/);
      expect(error.message).not.toMatch(/undefined|toLowerCase/);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('bounds every string and list, naming the field', async () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['search_tools', { query: 'list records '.repeat(50) }, 'query', /more than 500 characters/],
      ['search_tools', { query: 'x'.repeat(2_000_000) }, 'query', /more than 500 characters/],
      ['search_tools', { query: 'list records', limit: 26 }, 'limit', /<= 25/],
      ['search_tools', { query: 'list records', tool_set: 'Nope' }, 'tool_set', /must be one of: "WriteApi"/],
      ['describe_tools', { names: Array(21).fill('WriteApi_ListThings') }, 'names', /more than 20 items/],
      ['describe_tools', { names: ['x'.repeat(201)] }, 'names[0]', /more than 200 characters/],
      ['describe_tools', { names: [42] }, 'names[0]', /must be of type string/],
      ['call_tool', { name: 'x'.repeat(201) }, 'name', /more than 200 characters/],
      ['call_tool', { name: 'WriteApi_ListThings', arguments: [1] }, 'arguments', /must be of type object/],
      ['preview_tool_call', { name: 42 }, 'name', /must be of type string/],
      ['apply_preview', { preview_id: 'p'.repeat(101) }, 'preview_id', /more than 100 characters/],
      ['apply_preview', { preview_id: 'pv_x', idempotency_key: '' }, 'idempotency_key', /fewer than 1/],
    ];
    for (const [tool, args, parameter, message] of cases) {
      const error = await refusal(tool, args);
      expect(error, `${tool} ${parameter}`).toMatchObject({ code: 'invalid_argument', parameter });
      expect(error.message).toMatch(message);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses unknown parameters, naming them and the accepted ones', async () => {
    const many = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    const error = await refusal('call_tool', { name: 'WriteApi_ListThings', args: {}, ...many });
    expect(error).toMatchObject({ code: 'invalid_argument', parameter: 'args' });
    expect(error.message).toBe("Unknown parameter 'args' (accepted: name, arguments, idempotency_key).");
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers a call that fails inside the host internal_error, and logs what failed', async () => {
    const failing: Host = Object.create(host, {
      applyPreview: {
        value: () => {
          throw new TypeError('secret detail of a bug');
        },
      },
    });
    const c = await connect(failing);
    const result = (await c.callTool({
      name: 'apply_preview',
      arguments: { preview_id: 'pv_x' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text).error).toMatchObject({ code: 'internal_error', retryable: false });
    expect(text).not.toContain('secret detail');
    await new Promise((r) => setTimeout(r, 50));
    expect(log.lines()).toContain('secret detail of a bug');
    expect(log.lines()).toContain('"tool":"apply_preview"');
    await c.close();
  });
});
