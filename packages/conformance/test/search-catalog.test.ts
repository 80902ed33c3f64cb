import { createHost } from '@toolhost/host';
import { describe, expect, it } from 'vitest';
import { shippedQuestions } from '../../search/eval/shipped-questions.mjs';
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

  // The plugins ship, as past requests, the questions people asked that @toolhost/search's
  // evaluation holds, but its held-out half (which judges the ranking that leans on them):
  // written by packages/bench/scripts/generate-past-requests.mjs, checked here so that what the
  // host searches with is what the bench measured.
  it('has the past requests of every question people asked but the held-out half', async () => {
    const plugins = await Promise.all(pluginPackages().map(async (name) => (await import(name)).default));
    const host = await createHost({}, { plugins, env: {} });
    try {
      const key = (r: { request: string; tools: readonly string[]; source?: string }) =>
        JSON.stringify([r.request, [...r.tools].sort(), r.source]);
      const expected = shippedQuestions()
        .flatMap((q) =>
          [...new Set(q.tools.map((t) => t.split('.')[0]))].map((set) =>
            key({
              request: q.question,
              tools: q.tools.filter((t) => t.startsWith(`${set}.`)),
              source: q.source,
            }),
          ),
        )
        .sort();
      expect(host.serving.pastRequests.map(key).sort()).toEqual(expected);
      expect(expected.length).toBeGreaterThan(300);
    } finally {
      await host.close(0);
    }
  });
});
