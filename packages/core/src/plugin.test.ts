import type { DependencyContainer } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { TOOL_SET } from './di-tokens.js';
import { defineToolSetPlugin, type PluginOptions } from './plugin.js';
import type { ToolSetDefinition } from './tool-declaration.js';

const plugin = defineToolSetPlugin({
  name: 'paced-plugin',
  version: '1.0.0',
  toolSet: 'PacedApi',
  servers: { default: 'https://paced.invalid' },
  tools: [],
  settings: {
    pacing: { key: 'baseId', requestsPerSecond: 5 },
    retryOnRateLimit: { defaultWaitSeconds: 30, maxWaitSeconds: 30 },
  },
});

/** Captures what the plugin registers, without tsyringe's reflection polyfill. */
function settingsWith(options: PluginOptions) {
  let registered: ToolSetDefinition | undefined;
  const c = {
    register(token: unknown, provider: { useValue: ToolSetDefinition }) {
      if (token === TOOL_SET) registered = provider.useValue;
    },
  } as unknown as DependencyContainer;
  plugin.register(c, options);
  return registered?.settings;
}

describe('pacing overrides from the host', () => {
  it("keeps the plugin's pacing by default", () => {
    expect(settingsWith({})?.pacing).toEqual({ key: 'baseId', requestsPerSecond: 5 });
  });

  it('changes the rate but keeps the key', () => {
    expect(settingsWith({ pacing: { requestsPerSecond: 20 } })?.pacing).toEqual({
      key: 'baseId',
      requestsPerSecond: 20,
    });
  });

  it('turns pacing off and leaves the other settings alone', () => {
    const settings = settingsWith({ pacing: false });
    expect(settings?.pacing).toBeUndefined();
    expect(settings?.retryOnRateLimit).toEqual({ defaultWaitSeconds: 30, maxWaitSeconds: 30 });
  });
});
