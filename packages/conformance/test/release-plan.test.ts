import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

// Releases in a scratch copy of the workspace (its manifests, the changesets and their config),
// so that what `changeset version` would do is seen without touching the repository.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const changesetCli = createRequire(join(root, 'package.json')).resolve('@changesets/cli/bin.js');
const PLUGINS = ['cdp-pipelines', 'crm-automation', 'crm-events', 'crm-marketing', 'grid'].map(
  (p) => `@toolhost/plugin-${p}`,
);

type Manifest = { name: string; version: string; peerDependencies?: Record<string, string> };

function scratchWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-release-'));
  for (const file of ['package.json', 'pnpm-workspace.yaml']) cpSync(join(root, file), join(dir, file));
  cpSync(join(root, '.changeset'), join(dir, '.changeset'), { recursive: true });
  for (const pkg of readdirSync(join(root, 'packages'))) {
    mkdirSync(join(dir, 'packages', pkg), { recursive: true });
    cpSync(join(root, 'packages', pkg, 'package.json'), join(dir, 'packages', pkg, 'package.json'));
  }
  git(dir, 'init', '-q', '-b', 'main');
  commitAll(dir, 'scratch');
  return dir;
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

function commitAll(cwd: string, message: string): void {
  git(cwd, 'add', '-A');
  git(cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', message);
}

function version(cwd: string): void {
  execFileSync(process.execPath, [changesetCli, 'version'], { cwd, stdio: 'ignore' });
  commitAll(cwd, 'version');
}

function addChangeset(cwd: string, id: string, releases: Record<string, string>): void {
  const front = Object.entries(releases)
    .map(([name, type]) => `"${name}": ${type}`)
    .join('\n');
  writeFileSync(join(cwd, '.changeset', `${id}.md`), `---\n${front}\n---\n\n${id}\n`);
}

function manifests(cwd: string): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const pkg of readdirSync(join(cwd, 'packages'))) {
    const m = JSON.parse(readFileSync(join(cwd, 'packages', pkg, 'package.json'), 'utf8')) as Manifest;
    out.set(m.name, m);
  }
  return out;
}

function checkPlan(cwd: string): { code: number; output: string } {
  try {
    const output = execFileSync(process.execPath, [join(root, 'scripts/check-release-plan.mjs'), cwd], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, output };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, output: `${err.stdout}${err.stderr}` };
  }
}

describe('independent releases', () => {
  let released: string;
  beforeAll(() => {
    // The first release: every pending changeset consumed.
    released = scratchWorkspace();
    version(released);
  }, 60_000);

  it('publishes every package at 1.0.0 first, plugins peering on core ^1', () => {
    const m = manifests(released);
    expect(m.get('@toolhost/core')!.version).toBe('1.0.0');
    expect(m.get('@toolhost/host')!.version).toBe('1.0.0');
    for (const plugin of PLUGINS) {
      expect(m.get(plugin)!.version, plugin).toBe('1.0.0');
      // Published as ^1.0.0: pnpm writes the workspace range out at publish.
      expect(m.get(plugin)!.peerDependencies?.['@toolhost/core'], plugin).toBe('workspace:^');
    }
  });

  it('a core minor leaves every plugin version untouched, and the plan passes the CI check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-release-minor-'));
    cpSync(released, dir, { recursive: true });
    addChangeset(dir, 'core-minor', { '@toolhost/core': 'minor' });
    expect(checkPlan(dir)).toMatchObject({ code: 0 });
    version(dir);
    const m = manifests(dir);
    expect(m.get('@toolhost/core')!.version).toBe('1.1.0');
    for (const plugin of PLUGINS) expect(m.get(plugin)!.version, plugin).toBe('1.0.0');
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('a plugin patch stays with that plugin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-release-patch-'));
    cpSync(released, dir, { recursive: true });
    addChangeset(dir, 'grid-fix', { '@toolhost/plugin-grid': 'patch' });
    version(dir);
    const m = manifests(dir);
    expect(m.get('@toolhost/plugin-grid')!.version).toBe('1.0.1');
    expect(m.get('@toolhost/core')!.version).toBe('1.0.0');
    for (const plugin of PLUGINS.filter((p) => !p.endsWith('grid')))
      expect(m.get(plugin)!.version).toBe('1.0.0');
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('the CI check fails a plan that forces majors no changeset asked for', () => {
    // Without the peer-range setting, changesets bumps every peer dependent of core to a major.
    const dir = mkdtempSync(join(tmpdir(), 'toolhost-release-forced-'));
    cpSync(released, dir, { recursive: true });
    const configFile = join(dir, '.changeset', 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    delete config.___experimentalUnsafeOptions_WILL_CHANGE_IN_PATCH;
    writeFileSync(configFile, JSON.stringify(config));
    addChangeset(dir, 'core-minor', { '@toolhost/core': 'minor' });
    commitAll(dir, 'unsafe config');
    const result = checkPlan(dir);
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      '@toolhost/plugin-grid would be released 1.0.0 → 2.0.0 (major), but its changesets ask for no release',
    );
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
