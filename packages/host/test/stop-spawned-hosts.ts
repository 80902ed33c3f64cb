import { afterAll } from 'vitest';
import { stopSpawnedHosts } from './support.js';

// A setup file runs again before each test file (support.ts is imported once per worker, which
// runs several files): the hook belongs to that file's root suite, so hosts a failed test left
// running are stopped when its file ends, not when the worker does.
afterAll(stopSpawnedHosts);
