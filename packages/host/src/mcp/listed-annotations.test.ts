import { describe, expect, it } from 'vitest';
import { listedAnnotations } from './create-mcp-server.js';

const hints = (
  readOnlyHint: boolean,
  destructiveHint: boolean,
  idempotentHint: boolean,
  openWorldHint = true,
) => ({
  readOnlyHint,
  destructiveHint,
  idempotentHint,
  openWorldHint,
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
    const defaults = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    };
    for (const ro of [false, true])
      for (const d of [false, true])
        for (const i of [false, true])
          for (const o of [false, true]) {
            const full = hints(ro, d, i, o);
            const read = { ...defaults, ...listedAnnotations(full) };
            expect(read.readOnlyHint).toBe(full.readOnlyHint);
            expect(read.openWorldHint).toBe(full.openWorldHint);
            if (!full.readOnlyHint) {
              expect(read.destructiveHint).toBe(full.destructiveHint);
              expect(read.idempotentHint).toBe(full.idempotentHint);
            }
          }
  });
});
