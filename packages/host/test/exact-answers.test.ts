import { brotliCompressSync, gzipSync } from 'node:zlib';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeResponse,
  type RecordingUpstream,
  startRecordingUpstream,
} from '../../testing/src/recording-upstream.js';
import { type ServedHttpHost, serveHttpHost } from './served-http-host.js';

// A tool's result is its endpoint's answer: an id past 2^53 or a decimal longer than a double
// keeps must reach the agent with the digits the vendor wrote, not those of the nearest double,
// and an answer compressed twice must reach it decoded, or as an error that says why it cannot.
const TOKEN = 'exact-token-0123456789';
const MAX = 4096;
const NUMBERS =
  '{"id": 12345678901234567891, "next": 9007199254740993, "ratio": 0.1000000000000000055511151231257827,' +
  ' "huge": 1e400, "count": 3, "label": "id 12345678901234567891"}';
const json = { 'content-type': 'application/json' };
const page = JSON.stringify({
  items: Array.from({ length: 200 }, (_, i) => ({ n: i, label: 'x'.repeat(40) })),
});
// Over the budget: its summary quotes the top-level fields and the first items.
const BIG = `{"total": 12345678901234567891, "after": 9007199254740993, "items": [{"id": 9007199254740993, "n": 0}, ${page.slice(10, -2)}]}`;

const answers: Record<string, FakeResponse> = {
  '/items/numbers': { headers: json, body: NUMBERS },
  '/items/big': { headers: json, body: BIG },
  '/items': { status: 201, headers: json, body: NUMBERS },
  '/items/refused': { status: 409, headers: json, body: '{"error": "taken", "by": 12345678901234567891}' },
  '/items/gzip-gzip': {
    headers: { ...json, 'content-encoding': 'gzip, gzip' },
    body: gzipSync(gzipSync(NUMBERS)),
  },
  '/items/gzip-br': {
    headers: { ...json, 'content-encoding': 'gzip, identity, br' },
    body: brotliCompressSync(gzipSync(NUMBERS)),
  },
  '/items/zstd': { headers: { ...json, 'content-encoding': 'gzip, zstd' }, body: gzipSync(NUMBERS) },
};

let upstream: RecordingUpstream;
let host: ServedHttpHost;
let client: Client;

beforeAll(async () => {
  upstream = await startRecordingUpstream((req) => answers[req.path] ?? { status: 404 });
  host = await serveHttpHost(
    {
      plugins: ['toolhost-plugin-echo'],
      toolSets: { EchoApi: { baseUrl: upstream.url } },
      http: { accessTokens: { alice: TOKEN } },
      mcp: { maxResultBytes: MAX },
    },
    { ECHO_AUTH_TOKEN: 'tok-exact', ECHO_KEY: 'echo-key-0123456789' },
  );
  client = new Client({ name: 'exact-answers-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await host.close();
  await upstream.close();
});

async function textOf(itemId: string): Promise<{ text: string; isError: boolean; structured: unknown }> {
  const result = await client.callTool({ name: 'EchoApi_GetItem', arguments: { item_id: itemId } });
  const first = (result.content as { type: string; text: string }[])[0]!;
  expect(first.type).toBe('text');
  return { text: first.text, isError: result.isError === true, structured: result.structuredContent };
}

/** The numbers of NUMBERS as the agent reads them: each with its digits, none rounded. */
function expectVendorNumbers(text: string): void {
  const read = JSON.parse(text);
  expect(read).toEqual({
    id: '12345678901234567891',
    next: '9007199254740993',
    ratio: '0.1000000000000000055511151231257827',
    huge: '1e400',
    count: 3,
    label: 'id 12345678901234567891',
  });
  // What JSON.parse made of them, the nearest doubles, appears nowhere.
  for (const rounded of ['12345678901234567000', '9007199254740992', 'null'])
    expect(text).not.toContain(rounded);
}

describe('numbers an answer holds, over MCP', () => {
  it('reach the agent with the digits the vendor wrote, past 2^53 and past a double', async () => {
    const { text, isError } = await textOf('numbers');
    expect(isError).toBe(false);
    expectVendorNumbers(text);
  });

  it('reach an embedder calling in process as the same strings', async () => {
    const outcome = await host.host.callTool('EchoApi.GetItem', { item_id: 'numbers' });
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    expectVendorNumbers(JSON.stringify(outcome.ok && outcome.kind === 'response' ? outcome.body : undefined));
  });

  it('keep their digits in an error body, and in an outcome stored for its idempotency key', async () => {
    const { isError, structured } = await textOf('refused');
    expect(isError).toBe(true);
    expect(structured).toMatchObject({
      error: { code: 'upstream_error', status: 409, upstream: { by: '12345678901234567891' } },
    });
    const create = () =>
      host.host.callTool(
        'EchoApi.CreateItem',
        { mode: 'execute', request_body: { name: 'n' } },
        { idempotencyKey: 'exact-1' },
      );
    const first = await create();
    const replayed = await create();
    expect(upstream.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(replayed).toEqual(first);
    expectVendorNumbers(
      JSON.stringify(replayed.ok && replayed.kind === 'response' ? replayed.body : undefined),
    );
  });

  it('keep their digits in the summary of an answer over the budget, and in its structured content', async () => {
    const { text, structured } = await textOf('big');
    const summary = JSON.parse(text);
    expect(summary.truncated).toBe(true);
    expect(summary.fields).toEqual({ total: '12345678901234567891', after: '9007199254740993' });
    expect(summary.items.first[0]).toEqual({ id: '9007199254740993', n: 0 });
    expect(summary.nextPage).toMatchObject({ cursor: '9007199254740993', from: 'after' });
    expect(structured).toMatchObject({ total: '12345678901234567891', after: '9007199254740993' });
    expect(text).not.toContain('9007199254740992');
  });
});

describe('an answer compressed more than once, over MCP', () => {
  it('is decoded coding by coding, the last applied first: gzip twice, br over gzip with identity between', async () => {
    for (const item of ['gzip-gzip', 'gzip-br']) {
      const { text, isError } = await textOf(item);
      expect(isError).toBe(false);
      expectVendorNumbers(text);
    }
  });

  it('in a coding the host cannot decode is a clear error naming it, not its bytes passed off as the body', async () => {
    const { text, isError, structured } = await textOf('zstd');
    expect(isError).toBe(true);
    expect(structured).toEqual({
      error: {
        code: 'upstream_error',
        status: 200,
        retryable: false,
        message: expect.stringMatching(/content-encoding 'zstd'.*cannot be decoded/),
      },
    });
    expect(JSON.parse(text)).toEqual(structured);
  });
});
