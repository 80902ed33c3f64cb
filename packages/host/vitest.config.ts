import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Hang guards, not promises (those are asserted in the tests, with their margins): three
    // files at a time on 2 busy cores (stress-ng, other suites) stretch a test that spawns hosts
    // several times over, and a guard that cut it short failed it for the load alone.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Most files here wait rather than compute: on spawned hosts, Redis fail-overs, pacing,
    // drain delays. Vitest's default (cores - 1) runs them one at a time on 2 cores, the cores
    // idle most of the run; three at a time keeps them busy. Files share nothing: every port is
    // a free one (Redis and Sentinels take another when theirs was taken), and the timing
    // assertions leave a loaded machine its margin.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // Files that run scenarios on replicas and Redis start first, also in a fresh clone.
    sequence: { sequencer: LongestFirstSequencer },
    // A worker runs file after file with the modules it has loaded: a fresh process and module
    // graph per file cost each of the ~100 files 1-3 s of CPU (the host, engine and credentials
    // loaded again), about half the CPU of the light files and a fifth of the suite's on a
    // busy machine. What a file sets up is its own: suites start their servers in hooks they
    // register (useReplicaSuite() and the like), hosts a file spawned are stopped when it ends
    // (the setup file), and a file that registers OpenTelemetry globals removes them.
    isolate: false,
    setupFiles: ['test/stop-spawned-hosts.ts'],
    // The workspace packages' built JavaScript loads as Node loads it (as the host's own CLI
    // does), not through Vite's transform: the same modules, with less work per file.
    server: { deps: { external: [/\/packages\/[^/]+\/dist\//] } },
  },
});
