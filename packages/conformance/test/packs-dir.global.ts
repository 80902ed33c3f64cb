import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

// A directory of this run's own for the workspace's tarballs: the first test file that needs
// them packs them there (packedWorkspace in pack-workspace.ts) and the others read the same
// tarballs, so a run packs the workspace once. Nothing is packed for runs that need no tarballs.
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-run-packs-'));
  project.provide('packsDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    packsDir: string;
  }
}
