import { type PluginOptions, TOOL_SET_TOKEN, type ToolSetDefinition } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { createCdpPipelinesPlugin } from './plugin.js';

function servers(options: PluginOptions) {
  let set: ToolSetDefinition | undefined;
  createCdpPipelinesPlugin().register(
    {
      register(token, provider) {
        if (token === TOOL_SET_TOKEN) set = provider.useValue as ToolSetDefinition;
      },
    },
    options,
  );
  return set!.servers;
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
