import { describe, expect, it } from 'vitest';
import { allows, grantedScopes, scopeForToolCall, TOOLS_READ, TOOLS_WRITE } from './scopes.js';

describe('host scopes', () => {
  it('lets tools:write do what tools:read does, and not the other way round', () => {
    expect(allows([TOOLS_WRITE], TOOLS_READ)).toBe(true);
    expect(allows([TOOLS_READ], TOOLS_WRITE)).toBe(false);
    expect(grantedScopes(['openid', 'profile'])).toEqual(new Set());
  });

  it('asks tools:write for a write tool, tools:read for a read tool or a schema request', () => {
    expect(scopeForToolCall({ readOnly: true })).toBe(TOOLS_READ);
    expect(scopeForToolCall({ readOnly: false, arguments: { mode: 'execute' } })).toBe(TOOLS_WRITE);
    expect(scopeForToolCall({ readOnly: false, arguments: { mode: 'get_request_schema' } })).toBe(TOOLS_READ);
  });
});
