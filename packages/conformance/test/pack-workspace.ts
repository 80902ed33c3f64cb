import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The directory names under packages/ of every package the release publishes (not `private`). */
export function publishedPackages(): string[] {
  return readdirSync(join(root, 'packages'))
    .filter((dir) => {
      try {
        const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
        return pkg.private !== true;
      } catch {
        return false;
      }
    })
    .sort();
}

/**
 * Packs workspace packages as consumers get them (pnpm writes the workspace ranges out), by
 * directory name under packages/: the tarball of each.
 */
export function packWorkspace(packages: readonly string[]): Record<string, string> {
  const packs = mkdtempSync(join(tmpdir(), 'toolhost-packs-'));
  const tarballs: Record<string, string> = {};
  for (const pkg of packages) {
    const out = execFileSync('pnpm', ['pack', '--pack-destination', packs], {
      cwd: join(root, 'packages', pkg),
      encoding: 'utf8',
    });
    tarballs[pkg] = out.trim().split('\n').at(-1)!;
  }
  return tarballs;
}

/** npm as a consumer runs it: quiet, cache first (the third-party dependencies come from the registry). */
export function npm(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('npm', [...args], {
    cwd,
    encoding: 'utf8',
    env: { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
}
