import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The transports take what they need from `host.serving` (serving-support.ts), never from the
// host's container: the next protocol revision changes this layer, and should not have to
// know how the host composes its services.
const folder = new URL('./', import.meta.url);
/** Still reaching into the container, until the discovery tools take their registry from the host too. */
const pending = new Set(['discovery-tools.ts']);

describe('the serving layer (mcp/)', () => {
  it('never reaches into the host container', () => {
    const files = readdirSync(folder).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(10);
    const reaching = files.filter((f) => {
      if (pending.has(f)) return false;
      const text = readFileSync(new URL(f, folder), 'utf8');
      return /\.container\b|from '\.\.\/services\.js'|from '\.\.\/assemble-host\.js'/.test(text);
    });
    expect(reaching).toEqual([]);
  });
});
