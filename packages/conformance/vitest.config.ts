import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // The soak test compares heap use around a forced collection.
    execArgv: ['--expose-gc'],
    // Packs the workspace at most once a run, for the files that install it (pack-workspace.ts).
    globalSetup: ['test/packs-dir.global.ts'],
    // One file at a time (vitest's default on 2 cores): three at a time passed on Node 20, but on
    // Node 22 the files that install with npm (global install, bundle, new plugin) stalled past
    // their 300 s hooks when run side by side.
    maxWorkers: 1,
  },
});
