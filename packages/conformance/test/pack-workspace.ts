import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const execFileAsync = promisify(execFile);

/** The repository's root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url));

// TypeScript 7 exports no `bin/tsc` subpath: the command is found beside its package.json.
const typescript = join(
  dirname(createRequire(join(root, 'package.json')).resolve('typescript/package.json')),
  'bin',
  'tsc',
);

/** What tsc prints for the project in `dir`: its errors (nothing when it compiles), or what `options` ask for. */
export function tsc(dir: string, options: readonly string[] = []): string {
  try {
    return execFileSync(process.execPath, [typescript, '-p', dir, ...options], { encoding: 'utf8' });
  } catch (e) {
    return (e as { stdout: string }).stdout;
  }
}

/**
 * A one-file program in `dir` compiled as a consumer's is: NodeNext, strict, every declaration
 * file checked, with `options` beside those.
 */
export function writeProgram(dir: string, file: string, source: string, options: object): void {
  writeFileSync(join(dir, file), source);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        ...options,
      },
      files: [file],
    }),
  );
}

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
 * directory name under packages/, into `packs`: the tarball of each. One `pnpm pack` over them
 * all: a pnpm started per package cost ten times the CPU of the packing itself.
 */
async function packWorkspace(packages: readonly string[], packs: string): Promise<Record<string, string>> {
  const dirOf = new Map(
    packages.map((dir) => [
      (JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { name: string })
        .name,
      dir,
    ]),
  );
  const { stdout } = await execFileAsync(
    'pnpm',
    [
      ...[...dirOf.keys()].flatMap((name) => ['--filter', name]),
      'pack',
      '--pack-destination',
      packs,
      '--json',
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const packed = [JSON.parse(stdout) as PackResult | PackResult[]].flat();
  const tarballs = Object.fromEntries(packed.map((p) => [dirOf.get(p.name)!, p.filename]));
  const missing = packages.filter((dir) => !tarballs[dir]);
  if (missing.length > 0) throw new Error(`pnpm pack wrote no tarball for ${missing.join(', ')}`);
  return tarballs;
}

/** What `pnpm pack --json` reports of each package. */
interface PackResult {
  name: string;
  filename: string;
}

/**
 * Every published package (publishedPackages) packed, once per run: the first test file to ask
 * packs them into the run's directory (run-fixtures.global.ts); the others wait for its list, and
 * fail with its error if it failed.
 */
export async function packedWorkspace(): Promise<Record<string, string>> {
  const dir = inject('packsDir');
  const list = join(dir, 'tarballs.json');
  const failed = join(dir, 'failed');
  let first = true;
  try {
    mkdirSync(join(dir, 'packing'));
  } catch {
    first = false;
  }
  if (first) {
    try {
      const tarballs = await packWorkspace(publishedPackages(), dir);
      // Written whole, then renamed: a reader never sees half a list.
      writeFileSync(`${list}.partial`, JSON.stringify(tarballs));
      renameSync(`${list}.partial`, list);
      return tarballs;
    } catch (e) {
      writeFileSync(failed, String(e));
      throw e;
    }
  }
  // Bounded by the caller's hook timeout.
  for (;;) {
    if (existsSync(list)) return JSON.parse(readFileSync(list, 'utf8')) as Record<string, string>;
    if (existsSync(failed))
      throw new Error(`another test file failed to pack the workspace: ${readFileSync(failed, 'utf8')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * npm's settings for the tests: quiet, the third-party dependencies from the run's mirror on
 * loopback and into the run's own cache (run-fixtures.global.ts), whatever the user's npmrc says.
 */
export const npmEnv = (env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv => ({
  ...env,
  npm_config_registry: inject('npmMirror'),
  npm_config_cache: inject('npmCache'),
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
});

/** npm as a consumer runs it, quietly. */
export function npm(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('npm', [...args], { cwd, encoding: 'utf8', env: npmEnv(env) });
}

/** npm as `npm` runs it, without blocking the test file's other work: its output. */
export async function npmAsync(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return (await execFileAsync('npm', [...args], { cwd, encoding: 'utf8', env: npmEnv(env) })).stdout;
}
