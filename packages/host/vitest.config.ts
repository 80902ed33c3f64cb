import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { sharedWorkers } from '../../vitest.shared.js';
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
    // Files share a worker's modules (vitest.shared.ts): suites start their servers in hooks
    // they register (useReplicaSuite() and the like), hosts a file spawned are stopped when it
    // ends (the setup file), and a file that registers OpenTelemetry globals removes them.
    ...sharedWorkers,
    setupFiles: ['test/stop-spawned-hosts.ts'],
  },
});
