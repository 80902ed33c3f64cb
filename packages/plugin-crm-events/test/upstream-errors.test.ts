import { catalogSuite } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { suiteOptions, TOKEN } from './suite-options.js';

const api = catalogSuite(suiteOptions);
const { call } = api;

describe('CrmEventsApi unknown tools', () => {
  it('an unknown tool is a protocol error naming it', async () => {
    await expect(call('NoSuchTool', {})).rejects.toThrow(/No tool named 'CrmEventsApi_NoSuchTool' is loaded/);
    expect(api.upstream.requests).toHaveLength(0);
  });
});

describe('CrmEventsApi upstream failures', () => {
  it('turns an upstream 4xx into a structured error with the upstream body', async () => {
    api.upstream.respond(() => ({
      status: 404,
      body: { status: 'error', message: 'Event definition not found' },
    }));
    const result = await call('FetchEventDefinitionByName', { event_name: 'missing' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: 'upstream_error',
        status: 404,
        retryable: false,
        message: 'The upstream answered HTTP 404.',
        upstream: { status: 'error', message: 'Event definition not found' },
      },
    });
  });

  it('marks 5xx retryable and 429 as rate limited with the wait', async () => {
    api.upstream.respond(() => ({ status: 503, body: 'unavailable' }));
    const r1 = await call('ListEventTypes', {});
    expect((r1.structuredContent as { error: { code: string; retryable: boolean } }).error).toMatchObject({
      code: 'upstream_error',
      retryable: true,
    });
    api.upstream.respond(() => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: { message: 'slow down' },
    }));
    const r2 = await call('ListEventTypes', {});
    expect((r2.structuredContent as { error: unknown }).error).toMatchObject({
      code: 'upstream_rate_limited',
      retryAfterSeconds: 120,
      retryable: true,
    });
  });

  it('never shows the token in results or logs', async () => {
    api.upstream.respond(() => ({ status: 401, body: { message: 'bad token' } }));
    const result = await call('ListEventTypes', {});
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(api.host.stderr()).not.toContain(TOKEN);
  });
});
