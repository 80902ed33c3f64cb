import { catalogSuite } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import * as schemas from '../src/schemas/tracking.generated.js';

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

const api = catalogSuite({
  plugin: '@toolhost/plugin-cdp-pipelines',
  toolSet: 'CdpPipelinesApi',
  env: { CDP_API_KEY: KEY },
  authorization: BASIC,
  headers: { 'x-strict-mode': undefined },
  response: { status: 200, body: {} },
  variants: { keyless: { env: {} } },
});
const { call, errorOf } = api;

describe('CdpPipelinesApi over MCP', () => {
  api.itListsTools('lists the 7 mode tools', {
    exactly: cases.map((c) => c.tool),
    required: Object.fromEntries(cases.map((c) => [c.tool, ['mode']])),
  });

  api.itSendsRequests(
    cases.map((c) => ({
      tool: c.tool,
      args: { mode: 'execute', request_body: JSON.stringify(c.body) },
      method: 'POST',
      path: c.path,
      body: c.body,
    })),
    '$tool sends its body with basic auth, permissive by default',
  );

  it.each(cases)(
    '$tool sends X-Strict-Mode: 1 exactly when its strict parameter has the enabling value',
    async (c) => {
      await call(c.tool, {
        mode: 'execute',
        request_body: JSON.stringify(c.body),
        [c.strictParam]: c.enabling,
      });
      await call(c.tool, { mode: 'execute', request_body: JSON.stringify(c.body), [c.strictParam]: 'false' });
      expect(api.upstream.requests.map((r) => r.headers['x-strict-mode'])).toEqual(['1', undefined]);
    },
  );

  api.itReturnsRequestSchemas(Object.fromEntries(cases.map((c) => [c.tool, c.schema])), {
    title: '%s get_request_schema returns the body schema without the secret and sends nothing',
    on: 'keyless',
  });
});

describe('CdpPipelinesApi refuses what the API would silently drop', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);

  it('names CDP_API_KEY when it is missing, and sends nothing', async () => {
    const result = await call(
      'TrackUserEvent',
      { mode: 'execute', request_body: JSON.stringify(cases[1]!.body) },
      'keyless',
    );
    expect(errorOf(result)).toMatchObject({
      code: 'missing_secret',
      message: expect.stringContaining('CDP_API_KEY'),
    });
    expect(api.upstream.requests).toHaveLength(0);
  });

  it('refuses a single call over 32 KB', async () => {
    const body = { type: 'track', userId: 'u1', event: 'Big', properties: { blob: big(33 * 1024) } };
    const result = await call('TrackUserEvent', { mode: 'execute', request_body: JSON.stringify(body) });
    expect(errorOf(result)).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/at most 32768 bytes/),
    });
    expect(api.upstream.requests).toHaveLength(0);
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
    expect(api.upstream.requests).toHaveLength(0);
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
    expect(api.upstream.requests).toHaveLength(0);
  });
});
