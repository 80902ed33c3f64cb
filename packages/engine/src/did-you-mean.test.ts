import { describe, expect, it } from 'vitest';
import { closest } from './did-you-mean.js';

describe('closest', () => {
  const known = Array.from({ length: 2000 }, (_, i) => `ToolSet${i}.ListThings`);

  it('finds a slip of an edit or two, and the start of a known name', () => {
    expect(closest('toolset7.listthing', known)).toBe('ToolSet7.ListThings');
    expect(closest('ToolSet12.ListThinks', known)).toBe('ToolSet12.ListThings');
    expect(closest('Nothing.Like.It', known)).toBeUndefined();
  });

  it('takes a name a letter off before a longer one it starts', () => {
    // The config's keys in their order: `tool` is `tools` mistyped, not the start of `toolSets`.
    expect(closest('tool', ['plugins', 'toolSets', 'tools'])).toBe('tools');
    expect(closest('tols', ['plugins', 'toolSets', 'tools'])).toBe('tools');
    expect(closest('toolset', ['plugins', 'toolSets', 'tools'])).toBe('toolSets');
    expect(closest('grid-auth', ['crm-auth-provider', 'grid-auth-provider'])).toBe('grid-auth-provider');
    // Of two it starts, the shorter.
    expect(closest('grid', ['grid-auth-provider-2', 'grid-auth-provider'])).toBe('grid-auth-provider');
  });

  it('skips names too far apart in length to be close, rather than measure a long name against each', () => {
    // 200,000 characters against 2,000 names took some 8 s of distances, all beyond the limit.
    const started = performance.now();
    expect(closest(`ToolSet1.${'x'.repeat(200_000)}`, known)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
