import type { BehaviorHints } from '@toolhost/core';
import { describe, expect, it } from 'vitest';
import { effectiveAnnotations, listedAnnotations, listedTool } from './listing.js';

const hints = (
  readOnly: boolean,
  destructive: boolean,
  idempotent: boolean,
  openWorld = true,
): BehaviorHints => ({
  readOnly,
  destructive,
  idempotent,
  openWorld,
});

describe('listedAnnotations', () => {
  it('keeps only what differs from the MCP defaults, and for tools that write', () => {
    expect(listedAnnotations(hints(true, false, true))).toEqual({ readOnlyHint: true });
    expect(listedAnnotations(hints(false, false, false))).toEqual({ destructiveHint: false });
    expect(listedAnnotations(hints(false, true, true))).toEqual({ idempotentHint: true });
    expect(listedAnnotations(hints(false, true, false))).toBeUndefined();
    expect(listedAnnotations(hints(true, false, true, false))).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
  });

  it('means the same as the full hints when absent ones read as MCP defaults', () => {
    for (const ro of [false, true])
      for (const d of [false, true])
        for (const i of [false, true])
          for (const o of [false, true]) {
            const full = hints(ro, d, i, o);
            const read = effectiveAnnotations(listedAnnotations(full));
            expect(read.readOnlyHint).toBe(full.readOnly);
            expect(read.openWorldHint).toBe(full.openWorld);
            if (!full.readOnly) {
              expect(read.destructiveHint).toBe(full.destructive);
              expect(read.idempotentHint).toBe(full.idempotent);
            }
          }
  });
});

describe('listedTool', () => {
  it('lists the described schema itself, by the MCP name, with the hints as annotations', () => {
    const inputSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const tool = {
      name: 'Set.GetThing',
      toolSet: 'Set',
      description: 'Reads a thing.',
      inputSchema,
      hints: hints(true, false, true),
    };
    const listed = listedTool(tool, 'Set_GetThing');
    expect(listed).toEqual({
      name: 'Set_GetThing',
      description: 'Reads a thing.',
      inputSchema,
      annotations: { readOnlyHint: true },
    });
    expect(listed.inputSchema).toBe(inputSchema);
    expect(listedTool({ ...tool, hints: hints(false, true, false) }, 'Set_GetThing')).not.toHaveProperty(
      'annotations',
    );
  });

  it('titles a shortened name with the tool’s whole name, and only those', () => {
    const tool = {
      name: 'CrmMarketingApi.GetMarketingEventParticipationsBreakdown',
      toolSet: 'CrmMarketingApi',
      description: 'Reads a breakdown.',
      inputSchema: { type: 'object' },
      hints: hints(true, false, true),
    };
    expect(listedTool(tool, 'CMA_GetMarketingEventParticipationsBreakdown').title).toBe(
      'CrmMarketingApi.GetMarketingEventParticipationsBreakdown',
    );
    expect(
      listedTool({ ...tool, name: 'CrmMarketingApi.GetThing' }, 'CrmMarketingApi_GetThing'),
    ).not.toHaveProperty('title');
  });
});
