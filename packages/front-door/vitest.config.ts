import { defineConfig } from 'vitest/config';

export default defineConfig({
  // As the other packages': vitest's default 5 s is short on a machine whose cores are all busy.
  test: { include: ['src/**/*.test.ts'], testTimeout: 20_000 },
});
