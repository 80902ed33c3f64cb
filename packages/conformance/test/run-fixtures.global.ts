import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startNpmMirror } from './npm-mirror.js';

// What the test files that install with npm share for one run:
// - a directory for the workspace's tarballs: the first file that needs them packs them there
//   (packedWorkspace in pack-workspace.ts) and the others read the same, so a run packs once;
// - the registry on loopback their third-party dependencies come from (npm-mirror.ts);
// - an npm cache of the run's own, so nothing a run installs comes from, or stays in, the user's.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-run-'));
  const packs = join(dir, 'packs');
  const cache = join(dir, 'npm-cache');
  const mirrored = join(dir, 'mirror');
  for (const d of [packs, cache, mirrored]) mkdirSync(d);
  const store = fileURLToPath(new URL('../../../node_modules/.pnpm', import.meta.url));
  const mirror = await startNpmMirror(store, mirrored);
  project.provide('packsDir', packs);
  project.provide('npmMirror', mirror.url);
  project.provide('npmCache', cache);
  return async () => {
    await mirror.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    packsDir: string;
    npmMirror: string;
    npmCache: string;
  }
}
