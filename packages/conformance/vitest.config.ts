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
    // Three files at a time: the longest ones wait on npm, the local registry and spawned hosts
    // far more than they compute, and vitest's default on 2 cores (one file) left the cores idle.
    maxWorkers: 3,
  },
});
