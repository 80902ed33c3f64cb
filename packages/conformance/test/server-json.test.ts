import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { pluginToolsOf } from '@toolhost/testing';
import { describe, expect, it } from 'vitest';
import { registryProblems, schemaProblems, vendoredSchema } from '../../../scripts/mcp-registry.mjs';
import { root } from './pack-workspace.js';

// server.json as the official MCP Registry checks it: its schema (the vendored copy of the
// version `$schema` names; the release workflow compares it with the live one) and its rules
// beyond the schema. Everything that names the server derives from the root package.json's
// `repository`.
type PackageJson = {
  name: string;
  version: string;
  private?: boolean;
  mcpName?: string;
  repository?: unknown;
};
type Server = {
  $schema: string;
  name: string;
  description: string;
  version: string;
  repository: { url: string; source: string; subfolder?: string };
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    runtimeHint?: string;
    packageArguments?: { type: 'positional' | 'named'; value?: string; name?: string }[];
    environmentVariables?: { name: string }[];
  }[];
} & Record<string, unknown>;

const run = promisify(execFile);
const read = <T>(file: string, dir = root): T => JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
const server = read<Server>('server.json');
const schema = vendoredSchema();
const packageDirs = readdirSync(join(root, 'packages')).map((d) => `packages/${d}`);
const published = new Map(
  packageDirs
    .map((dir) => [dir, read<PackageJson>(`${dir}/package.json`)] as const)
    .filter(([, pkg]) => !pkg.private)
    .map(([dir, pkg]) => [pkg.name, { ...pkg, dir }]),
);
const rootRepository = (read<PackageJson>('package.json').repository as { url: string }).url;
const [, owner, repo] = /^git\+https:\/\/github\.com\/([^/]+)\/([^/]+)\.git$/.exec(rootRepository) ?? [];
const check = (candidate: Server) => [
  ...schemaProblems(candidate, schema),
  ...registryProblems(candidate, { npmPackage: (name) => published.get(name), githubOwner: owner }),
];
/** server.json with the value at a dotted path replaced (removed when undefined). */
function changed(path: string, value: unknown): Server {
  const copy = structuredClone(server);
  const keys = path.split('.');
  const parent = keys
    .slice(0, -1)
    .reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, copy);
  if (value === undefined) delete parent[keys.at(-1)!];
  else parent[keys.at(-1)!] = value;
  return copy;
}

describe('server.json for the MCP Registry', () => {
  it('names the vendored schema, the registry’s own at its published version', () => {
    expect(schema.$id).toBe(server.$schema);
    expect(server.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/,
    );
  });

  it('passes the schema and the registry’s rules', () => {
    expect(check(server)).toEqual([]);
  });

  it.each<[string, string, unknown, RegExp]>([
    ['a description over 100 characters', 'description', 'x'.repeat(101), /description/],
    ['a name without its namespace', 'name', 'toolhost', /name/],
    ['the reserved version "latest"', 'packages.0.version', 'latest', /packages\/0\/version/],
    ['a package without a transport', 'packages.0.transport', undefined, /transport/],
    ['a version range', 'version', '^1.2.3', /version range/],
    ['a name that ends in a dot', 'name', 'io.github.toolhost/toolhost.', /name/],
    ['another account’s GitHub namespace', 'name', 'io.github.someone-else/toolhost', /granted only/],
    ['an npm mirror', 'packages.0.registryBaseUrl', 'https://registry.npmmirror.com', /registryBaseUrl/],
    [
      'a package this repository does not publish',
      'packages.0.identifier',
      '@toolhost/server-else',
      /no package/,
    ],
    ['a package version that is not the package’s', 'packages.0.version', '9.9.9', /is at/],
    ['metadata the registry drops', '_meta', { 'com.example/mine': {} }, /_meta/],
    [
      'a repository URL that is not GitHub’s',
      'repository.url',
      'https://example.com/toolhost',
      /repository\/url/,
    ],
  ])('is refused with %s', (_what, path, value, where) => {
    const problems = check(changed(path, value));
    expect(problems.join('\n')).toMatch(where);
  });
});

describe('the release workflow’s comparison with the live schema', () => {
  /** Runs the release workflow's check against a schema served on loopback; its exit code and stderr. */
  async function compareWith(served: unknown): Promise<{ code: number; stderr: string }> {
    const listener = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(served));
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    try {
      const { stderr } = await run(process.execPath, [
        join(root, 'scripts', 'validate-server-json.mjs'),
        `--compare-live=http://127.0.0.1:${port}/server.schema.json`,
      ]);
      return { code: 0, stderr };
    } catch (e) {
      return { code: (e as { code: number }).code, stderr: (e as { stderr: string }).stderr };
    } finally {
      listener.close();
    }
  }

  it('passes while the published schema is the vendored one', async () => {
    expect(await compareWith(schema)).toEqual({ code: 0, stderr: '' });
  });

  it('stops the release when the published schema has changed', async () => {
    const drifted = structuredClone(schema) as { definitions: Record<string, { required?: string[] }> };
    drifted.definitions.ServerDetail!.required!.push('title');
    const outcome = await compareWith(drifted);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('differs from the vendored copy');
    expect(outcome.stderr).toContain("must have required property 'title'");
  });
});

describe('the package entry, run as a client of the registry runs it', () => {
  const [entry] = server.packages;
  // `npx -y <identifier>@<version> <package arguments>`: npx installs the distribution and runs
  // its command, which here is the workspace's (installing it from a registry is
  // local-registry.test.ts's).
  const distributionCommand = join(root, 'packages', 'server', 'bin', 'toolhost.js');
  const args = (entry?.packageArguments ?? []).flatMap((a) =>
    a.type === 'positional' ? [a.value!] : [a.name!, ...(a.value ? [a.value] : [])],
  );

  it('starts the host over stdio, honouring the environment variables it names', async () => {
    expect(entry?.runtimeHint).toBe('npx');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [distributionCommand, ...args],
      env: { PATH: process.env.PATH ?? '', TOOLHOST_TOOL_SETS: 'GridApi', TOOLHOST_READ_ONLY: '1' },
      cwd: mkdtempSync(join(tmpdir(), 'toolhost-registry-client-')),
      stderr: 'ignore',
    });
    const client = new Client({ name: 'registry-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = pluginToolsOf((await client.listTools()).tools);
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.every((t) => t.name.startsWith('GridApi_') && t.annotations?.readOnlyHint)).toBe(true);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('offers every variable the MCP Bundle sets, so that a registry install can fill in the same', () => {
    // It left out CRM_AUTOMATION_API_USER_ID: the sequence tools failed without a config file.
    const manifest = read<{ server: { mcp_config: { env: Record<string, string> } } }>(
      'packaging/mcpb/manifest.json',
    );
    const offered = (entry?.environmentVariables ?? []).map((v) => v.name);
    for (const name of Object.keys(manifest.server.mcp_config.env)) {
      if (name !== 'TOOLHOST_BUNDLE_MANIFEST') expect(offered, name).toContain(name);
    }
  });

  it('names only environment variables the host reads', () => {
    const help = execFileSync(process.execPath, [distributionCommand, '--help'], { encoding: 'utf8' });
    for (const { name } of entry?.environmentVariables ?? []) expect(help, name).toContain(name);
  });
});

describe('the server’s name, derived from the root package.json’s repository', () => {
  it('is io.github.<owner>/<repo> of that repository, which server.json also names', () => {
    expect(owner).toBeTruthy();
    expect(server.name).toBe(`io.github.${owner}/${repo}`);
    expect(server.repository).toEqual({
      url: `https://github.com/${owner}/${repo}`,
      source: 'github',
      subfolder: 'packages/server',
    });
  });

  it('is every package.json’s mcpName, and each package server.json lists has it, at its version', () => {
    const named = packageDirs
      .map((dir) => read<PackageJson>(`${dir}/package.json`))
      .filter((pkg) => pkg.mcpName !== undefined);
    expect(named.map((p) => p.name)).toEqual(['@toolhost/server']);
    for (const pkg of named) expect(pkg.mcpName, pkg.name).toBe(server.name);
    for (const entry of server.packages) {
      const pkg = published.get(entry.identifier);
      expect(pkg?.mcpName, entry.identifier).toBe(server.name);
      expect(entry.version).toBe(pkg?.version);
    }
    expect(server.version).toBe(published.get('@toolhost/server')!.version);
  });

  it('is the repository every published package names, with its folder (npm’s provenance checks it)', () => {
    for (const [name, pkg] of published)
      expect(pkg.repository, name).toEqual({ type: 'git', url: rootRepository, directory: pkg.dir });
  });

  it('follows a fork’s repository everywhere once the sync script has run', () => {
    const fork = mkdtempSync(join(tmpdir(), 'toolhost-fork-'));
    cpSync(join(root, 'server.json'), join(fork, 'server.json'));
    const rootPkg = read<PackageJson>('package.json');
    writeFileSync(
      join(fork, 'package.json'),
      JSON.stringify({
        ...rootPkg,
        repository: { type: 'git', url: 'git+https://github.com/acme-labs/crm-tools.git' },
      }),
    );
    for (const dir of packageDirs) cpSync(join(root, dir, 'package.json'), join(fork, dir, 'package.json'));
    const sync = join(root, 'scripts', 'sync-server-json.mjs');
    expect(() => execFileSync(process.execPath, [sync, '--check', fork], { stdio: 'pipe' })).toThrow(
      /server\.json/,
    );
    execFileSync(process.execPath, [sync, fork]);
    const forked = read<Server>('server.json', fork);
    expect(forked.name).toBe('io.github.acme-labs/crm-tools');
    expect(forked.repository.url).toBe('https://github.com/acme-labs/crm-tools');
    expect(read<PackageJson>('packages/server/package.json', fork).mcpName).toBe(forked.name);
    expect(read<PackageJson>('packages/plugin-grid/package.json', fork).repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/acme-labs/crm-tools.git',
      directory: 'packages/plugin-grid',
    });
    execFileSync(process.execPath, [sync, '--check', fork]);
  });

  it('is in sync in this repository (the check CI can run)', () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'sync-server-json.mjs'), '--check', root]);
  });
});
