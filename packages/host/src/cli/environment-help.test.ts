import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_HELP } from './environment-help.js';

const src = fileURLToPath(new URL('..', import.meta.url));

/** Every TOOLHOST_ variable the host's code reads: `env.X`, `env['X']` or a config key's `'x-env': 'X'`. */
function variablesRead(): Set<string> {
  const names = new Set<string>();
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  );
  const read = /(?:env\.|env\[['"]|'x-env': ')(TOOLHOST_[A-Z0-9_]+)|_ENV = '(TOOLHOST_[A-Z0-9_]+)'/g;
  for (const file of files)
    for (const m of readFileSync(join(src, file), 'utf8').matchAll(read)) {
      const name = m[1] ?? m[2];
      if (name) names.add(name);
    }
  return names;
}

describe('toolhost --help', () => {
  it('lists every environment variable the host reads, as README and docs/operating.md say', () => {
    const read = variablesRead();
    // The scan finds what it should, so that an empty scan cannot pass.
    expect(read).toContain('TOOLHOST_TOKEN_KEY');
    expect(read).toContain('TOOLHOST_BUNDLE_MANIFEST');
    expect(read.size).toBeGreaterThan(20);
    const missing = [...read].filter((name) => !ENVIRONMENT_HELP.includes(name));
    expect(missing).toEqual([]);
  });
});
