import { describe, expect, it } from 'vitest';
import type { ToolInfo } from './host-api.js';
import { MAX_MCP_NAME, mcpToolName, ToolNameMap } from './tool-names.js';

const tool = (name: string) => ({ name }) as ToolInfo;
const LONG = 'CrmMarketingApi.GetMarketingEventParticipationsBreakdown';

describe('MCP tool names', () => {
  it('keep the long form when it fits with the prefix Claude Code adds', () => {
    expect(mcpToolName('CrmEventsApi.ListEventTypes')).toBe('CrmEventsApi_ListEventTypes');
    expect(`mcp__toolhost__${mcpToolName('CrmEventsApi.ListEventTypes')}`.length).toBeLessThanOrEqual(64);
  });

  it("put the tool set's capitals in place of a name too long for it", () => {
    expect(mcpToolName(LONG)).toBe('CMA_GetMarketingEventParticipationsBreakdown');
    expect(`mcp__toolhost__${mcpToolName(LONG)}`.length).toBeLessThanOrEqual(64);
    expect(mcpToolName(LONG, '.')).toBe('CMA.GetMarketingEventParticipationsBreakdown');
  });

  it('answer to both forms of a shortened name, and list the short one', () => {
    const names = new ToolNameMap([tool(LONG)]);
    expect(names.mcpName(LONG)).toBe('CMA_GetMarketingEventParticipationsBreakdown');
    expect(names.canonicalName('CMA_GetMarketingEventParticipationsBreakdown')).toBe(LONG);
    expect(names.canonicalName('CrmMarketingApi_GetMarketingEventParticipationsBreakdown')).toBe(LONG);
  });

  it('refuse at start-up a name that does not fit even shortened', () => {
    const name = `Set.${'A'.repeat(MAX_MCP_NAME)}`;
    expect(() => new ToolNameMap([tool(name)])).toThrow(/longer than 49/);
  });
});
