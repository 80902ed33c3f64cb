import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 90_000,
    // A worker runs file after file with the modules it has loaded, and the workspace packages'
    // built JavaScript loads as Node loads it: a fresh process and module graph per file cost
    // each file a second or more of CPU on a busy machine.
    isolate: false,
    server: { deps: { external: [/\/packages\/[^/]+\/dist\//] } },
  },
});
