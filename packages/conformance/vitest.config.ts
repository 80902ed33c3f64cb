import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // The soak test compares heap use around a forced collection.
    execArgv: ['--expose-gc'],
    // The workspace packed once a run, the npm mirror and cache for the files that install (run-fixtures.global.ts).
    globalSetup: ['test/run-fixtures.global.ts'],
    // Two files at a time: most of these tests wait on child processes (npm, hosts, clients).
    // The files that install with npm stalled side by side only while npm fetched from the public
    // registry; they now install from the run's mirror on loopback (npm-mirror.ts).
    maxWorkers: 2,
    // A worker runs its files one after another in one process: most files import the host, the
    // engine and the five plugins, and a fresh process per file loaded them each time (a fifth of
    // the CPU of the files that install nothing). No file mocks modules or changes the process's
    // environment, and every file closes what it starts.
    isolate: false,
  },
});
