import {
  type RecordingUpstream,
  type SpawnedHost,
  spawnHost,
  startRecordingUpstream,
} from '@toolhost/host/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as schemas from '../src/request-schemas.generated.js';

const KEY = 'cdp-source-key-3f9a';
const BASIC = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;

interface Case {
  tool: string;
  path: string;
  body: Record<string, unknown>;
  strictParam: string;
  enabling: string;
  schema: unknown;
}

const cases: Case[] = [
  {
    tool: 'IdentifyPersonAndAssignTraits',
    path: '/identify',
    body: { userId: 'u1', traits: { email: 'a@b.com', plan: 'pro' } },
    strictParam: 'enable_strict_validation',
    enabling: 'True',
    schema: schemas.identifyBody,
  },
  {
    tool: 'TrackUserEvent',
    path: '/track',
    body: { type: 'track', userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } },
    strictParam: 'enable_strict_validation',
    enabling: 'True',
    schema: schemas.trackBody,
  },
  {
    tool: 'SendPageViewEvent',
    path: '/page',
    body: { anonymousId: 'anon-1', name: 'Pricing', properties: { url: 'https://x.com/pricing' } },
    strictParam: 'enable_strict_mode',
    enabling: '1',
    schema: schemas.pageBody,
  },
  {
    tool: 'SendScreenViewEvent',
    path: '/screen',
    body: { userId: 'u1', name: 'Home' },
    strictParam: 'enable_strict_validation',
    enabling: '1',
    schema: schemas.screenBody,
  },
  {
    tool: 'AddToGroup',
    path: '/group',
    body: { userId: 'u1', groupId: 'g1', traits: { name: 'Acme' } },
    strictParam: 'enable_strict_validation',
    enabling: '1',
    schema: schemas.groupBody,
  },
  {
    tool: 'AliasUserIdentity',
    path: '/alias',
    body: { previousId: 'anon-1', userId: 'u1' },
    strictParam: 'enable_strict_validation',
    enabling: 'True',
    schema: schemas.aliasBody,
  },
  {
    tool: 'SendBatchRequests',
    path: '/batch',
    body: {
      batch: [
        { type: 'track', userId: 'u1', event: 'Viewed' },
        { type: 'identify', userId: 'u2' },
      ],
    },
    strictParam: 'enable_strict_mode',
    enabling: 'True',
    schema: schemas.batchBody,
  },
];

let upstream: RecordingUpstream;
let host: SpawnedHost;
let keyless: SpawnedHost;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  const config = {
    plugins: ['@toolhost/plugin-cdp-pipelines'],
    toolSets: { CdpPipelinesApi: { baseUrl: upstream.url } },
  };
  host = await spawnHost(config, { env: { CDP_API_KEY: KEY } });
  keyless = await spawnHost(config);
});
afterAll(async () => {
  await host?.close();
  await keyless?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.reset();
  upstream.respond(() => ({ status: 200, body: {} }));
});

const call = (tool: string, args: Record<string, unknown>, h: SpawnedHost = host) =>
  h.client.callTool({ name: `CdpPipelinesApi_${tool}`, arguments: args });
const errorOf = (r: unknown) =>
  (r as { structuredContent: { error: { code: string; message: string } } }).structuredContent.error;

describe('CdpPipelinesApi over MCP', () => {
  it('lists the 7 mode tools', async () => {
    const { tools } = await host.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(cases.map((c) => `CdpPipelinesApi_${c.tool}`).sort());
    for (const t of tools) expect(t.inputSchema.required).toEqual(['mode']);
  });

  it.each(cases)('$tool sends its body with basic auth, permissive by default', async (c) => {
    const result = await call(c.tool, { mode: 'execute', request_body: JSON.stringify(c.body) });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
    const req = upstream.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(c.path);
    expect(req.query).toEqual([]);
    expect(req.headers.authorization).toBe(BASIC);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers).not.toHaveProperty('x-strict-mode');
    expect(req.body).toEqual(c.body);
  });

  it.each(cases)(
    '$tool sends X-Strict-Mode: 1 exactly when its strict parameter has the enabling value',
    async (c) => {
      await call(c.tool, {
        mode: 'execute',
        request_body: JSON.stringify(c.body),
        [c.strictParam]: c.enabling,
      });
      await call(c.tool, { mode: 'execute', request_body: JSON.stringify(c.body), [c.strictParam]: 'false' });
      expect(upstream.requests.map((r) => r.headers['x-strict-mode'])).toEqual(['1', undefined]);
    },
  );

  it.each(cases)(
    '$tool get_request_schema returns the body schema without the secret and sends nothing',
    async (c) => {
      const result = await call(c.tool, { mode: 'get_request_schema' }, keyless);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ schema: c.schema });
      expect(upstream.requests).toHaveLength(0);
    },
  );
});

describe('CdpPipelinesApi refuses what the API would silently drop', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);

  it('names CDP_API_KEY when it is missing, and sends nothing', async () => {
    const result = await call(
      'TrackUserEvent',
      { mode: 'execute', request_body: JSON.stringify(cases[1]!.body) },
      keyless,
    );
    expect(errorOf(result)).toMatchObject({
      code: 'missing_secret',
      message: expect.stringContaining('CDP_API_KEY'),
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a single call over 32 KB', async () => {
    const body = { type: 'track', userId: 'u1', event: 'Big', properties: { blob: big(33 * 1024) } };
    const result = await call('TrackUserEvent', { mode: 'execute', request_body: JSON.stringify(body) });
    expect(errorOf(result)).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/at most 32768 bytes/),
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a batch over 500 KB in total, and one with a call over 32 KB', async () => {
    const item = (size: number) => ({
      type: 'track',
      userId: 'u1',
      event: 'E',
      properties: { blob: big(size) },
    });
    const total = { batch: Array.from({ length: 20 }, () => item(30 * 1024)) };
    const r1 = await call('SendBatchRequests', { mode: 'execute', request_body: JSON.stringify(total) });
    expect(errorOf(r1)).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/at most 512000 bytes/),
    });
    const oneBig = { batch: [item(10), item(40 * 1024)] };
    const r2 = await call('SendBatchRequests', { mode: 'execute', request_body: JSON.stringify(oneBig) });
    expect(errorOf(r2)).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/Item 1 of 'batch'/),
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses invalid JSON and a body that violates the schema', async () => {
    const r1 = await call('AliasUserIdentity', { mode: 'execute', request_body: '{"userId": "u1",' });
    expect(errorOf(r1)).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('not valid JSON'),
    });
    const r2 = await call('AliasUserIdentity', {
      mode: 'execute',
      request_body: JSON.stringify({ userId: 'u1' }),
    });
    expect(errorOf(r2)).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('request_body.previousId is required'),
    });
    const r3 = await call('IdentifyPersonAndAssignTraits', {
      mode: 'execute',
      request_body: JSON.stringify({ traits: {} }),
    });
    expect(errorOf(r3).code).toBe('invalid_argument');
    expect(upstream.requests).toHaveLength(0);
  });
});
