import { defineConfig } from 'vitest/config';
import { sharedWorkers } from '../../vitest.shared.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    ...sharedWorkers,
  },
});
