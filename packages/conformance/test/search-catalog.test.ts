import { createHost } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { pluginPackages } from '../src/plugins.js';

// @toolhost/search is judged on the five catalogs without depending on the host or the plugins
// (the host depends on it): its evaluation reads this snapshot of what the host lists. A change
// to a tool's description, parameters or endpoint fails here until the snapshot is rewritten:
//   pnpm -F @toolhost/conformance exec vitest run test/search-catalog.test.ts -u
describe("@toolhost/search's catalog snapshot", () => {
  it('is the tools the host lists for every plugin, as the host describes them', async () => {
    const plugins = await Promise.all(pluginPackages().map(async (name) => (await import(name)).default));
    const host = await createHost({}, { plugins, env: {} });
    try {
      await expect(`${JSON.stringify(host.listTools(), null, 2)}\n`).toMatchFileSnapshot(
        '../../search/eval/catalog.json',
      );
    } finally {
      await host.close(0);
    }
  });
});
