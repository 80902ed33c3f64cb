import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The serving layers (http/, stdio/, mcp/) take what they need from the `Host` API
// (host-api.ts, types only, with `host.serving` from serving-support.ts), never from the host's container or
// the modules that compose it: the next protocol revision changes these layers, and should not
// have to know how the host composes its services.
const layers = ['http', 'stdio', 'mcp'];
const src = new URL('./', import.meta.url);

describe('the serving layers (http/, stdio/, mcp/)', () => {
  const files = layers.flatMap((layer) =>
    readdirSync(new URL(`${layer}/`, src))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => `${layer}/${f}`),
  );
  const text = (f: string) => readFileSync(new URL(f, src), 'utf8');

  it('each hold their files', () => {
    expect(files.filter((f) => f.startsWith('http/')).length).toBeGreaterThan(8);
    expect(files.filter((f) => f.startsWith('stdio/')).length).toBeGreaterThan(1);
    expect(files.filter((f) => f.startsWith('mcp/')).length).toBeGreaterThan(10);
  });

  it('never reach into the host container or the modules that compose it', () => {
    const reaching = files.filter((f) =>
      /\.container\b|from '\.\.\/(services|assemble-host|host)\.js'|from '\.\.\/plugins\/|from 'tsyringe'/.test(
        text(f).replace(/^import type [^;]*from '\.\.\/(?!host\.js)[^;]*;/gms, ''),
      ),
    );
    expect(reaching).toEqual([]);
  });

  it('import the SDK only through mcp/sdk.ts', () => {
    const direct = files.filter((f) => f !== 'mcp/sdk.ts' && /from '@modelcontextprotocol\//.test(text(f)));
    expect(direct).toEqual([]);
  });
});
