import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // The soak test compares heap use around a forced collection.
    execArgv: ['--expose-gc'],
  },
});
