import 'reflect-metadata';
import { TOOL_SET as TOOL_SET_TOKEN, type ToolSetDefinition } from '@toolhost/core';
import { container } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { createCdpPipelinesPlugin } from './plugin.js';

function servers(options: Parameters<ReturnType<typeof createCdpPipelinesPlugin>['register']>[1]) {
  const c = container.createChildContainer();
  createCdpPipelinesPlugin().register(c, options);
  return c.resolve<ToolSetDefinition>(TOOL_SET_TOKEN).servers;
}

describe('CdpPipelinesApi region', () => {
  it('defaults to the US endpoint and selects the EU one by setting', () => {
    expect(servers({}).default).toBe('https://cdp.customer.io/v1');
    expect(servers({ settings: { region: 'eu' } }).default).toBe('https://cdp-eu.customer.io/v1');
  });

  it('lets an explicit base URL win over the region', () => {
    expect(servers({ settings: { region: 'eu' }, baseUrl: 'http://127.0.0.1:9' }).default).toBe(
      'http://127.0.0.1:9',
    );
  });

  it('refuses an unknown region at load', () => {
    expect(() => servers({ settings: { region: 'apac' } })).toThrow(
      /region must be "us" or "eu", not "apac"/,
    );
  });
});
