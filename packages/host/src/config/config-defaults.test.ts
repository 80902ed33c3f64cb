import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS, resolveConfig } from './config-defaults.js';
import type { HostConfig } from './host-config.js';

describe('resolveConfig', () => {
  it('fills every default, in sections the config leaves out too', () => {
    const resolved = resolveConfig({});
    expect(resolved.mcp).toEqual({
      nameSeparator: '_',
      catalog: 'auto',
      maxResultBytes: 80_000,
      resultTtlSeconds: 900,
    });
    expect(resolved.http).toMatchObject({
      host: '127.0.0.1',
      port: 3333,
      path: '/mcp',
      sessionIdleSeconds: 1800,
    });
    expect(resolved.engine.retry).toEqual({ maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 4000 });
    expect(resolved.defaultUserId).toBe('default');
    // Keys without a default stay absent rather than becoming empty values.
    expect(resolved.store).toEqual({
      connectTimeoutMs: 5000,
      commandTimeoutMs: 5000,
      keyPrefix: '',
      replicaAckTimeoutMs: 1000,
      sentinelName: 'mymaster',
    });
    expect(resolved.http).not.toHaveProperty('publicUrl');
    expect(resolved).toEqual(CONFIG_DEFAULTS);
  });

  it("keeps what the config sets, fills map entries, and leaves the caller's object alone", () => {
    const given: HostConfig = {
      mcp: { nameSeparator: '.' },
      engine: { retry: { maxAttempts: 5 } },
      toolSets: { GridApi: { pacing: false } },
    };
    const copy = structuredClone(given);
    const resolved = resolveConfig(given);
    expect(resolved.mcp.nameSeparator).toBe('.');
    expect(resolved.mcp.catalog).toBe('auto');
    expect(resolved.engine.retry).toEqual({ maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 4000 });
    expect(resolved.toolSets?.GridApi).toEqual({ pacing: false, enabled: true });
    expect(given).toEqual(copy);
  });
});
