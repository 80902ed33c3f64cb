import { describe, expect, it } from 'vitest';
import { defineToolSetPlugin, type PluginContainer, type PluginOptions, TOOL_SET_TOKEN } from './plugin.js';
import type { ToolSetDefinition } from './tool-declaration.js';

const plugin = defineToolSetPlugin({
  contractVersion: '2.7',
  name: 'paced-plugin',
  version: '1.0.0',
  toolSet: 'PacedApi',
  servers: { default: 'https://paced.invalid' },
  tools: [],
  traffic: {
    pacing: { key: 'baseId', requestsPerSecond: 5 },
    retryOnRateLimit: { defaultWaitSeconds: 30, maxWaitSeconds: 30 },
  },
});

/** Captures what the plugin registers, through the structural container type (no tsyringe). */
function registered(options: PluginOptions): ToolSetDefinition | undefined {
  let definition: ToolSetDefinition | undefined;
  const container: PluginContainer = {
    register(token, provider) {
      if (token === TOOL_SET_TOKEN) definition = provider.useValue as ToolSetDefinition;
    },
  };
  plugin.register(container, options);
  return definition;
}

describe('defineToolSetPlugin', () => {
  it("carries the plugin's own contract version, not the loaded core's", () => {
    expect(plugin.contractVersion).toBe('2.7');
    expect(registered({})?.contractVersion).toBe('2.7');
  });

  it('registers under a token shared by every copy of core', () => {
    expect(TOOL_SET_TOKEN).toBe(Symbol.for('toolhost.tool-set'));
  });
});

describe('pacing overrides from the host', () => {
  it("keeps the plugin's pacing by default", () => {
    expect(registered({})?.traffic?.pacing).toEqual({ key: 'baseId', requestsPerSecond: 5 });
  });

  it('changes the rate but keeps the key', () => {
    expect(registered({ pacing: { requestsPerSecond: 20 } })?.traffic?.pacing).toEqual({
      key: 'baseId',
      requestsPerSecond: 20,
    });
  });

  it('turns pacing off and leaves the other settings alone', () => {
    const traffic = registered({ pacing: false })?.traffic;
    expect(traffic?.pacing).toBeUndefined();
    expect(traffic?.retryOnRateLimit).toEqual({ defaultWaitSeconds: 30, maxWaitSeconds: 30 });
  });
});
