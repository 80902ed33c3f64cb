import { describe, expect, it } from 'vitest';
import { effectiveAnnotations, listedAnnotations, listedInputSchema } from './listing.js';

const hints = (
  readOnlyHint: boolean,
  destructiveHint: boolean,
  idempotentHint: boolean,
  openWorldHint = true,
) => ({
  readOnly: readOnlyHint,
  destructive: destructiveHint,
  idempotent: idempotentHint,
  openWorld: openWorldHint,
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

describe('listedInputSchema', () => {
  it('drops only the top-level additionalProperties: false', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'object', additionalProperties: false } },
      additionalProperties: false,
    };
    expect(listedInputSchema(schema)).toEqual({
      type: 'object',
      properties: { a: { type: 'object', additionalProperties: false } },
    });
  });

  it('keeps it for a tool without parameters, which strict mode would otherwise read as open', () => {
    const schema = { type: 'object', properties: {}, additionalProperties: false };
    expect(listedInputSchema(schema)).toEqual(schema);
  });
});
