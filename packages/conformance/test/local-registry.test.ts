import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  npm,
  npmAsync,
  packedWorkspace,
  publishedPackages,
  root,
  tsc,
  writeProgram,
} from './pack-workspace.js';

// Every package published to a registry on loopback (Verdaccio), then installed from it as
// users install MCP servers: `npm i -g` and `npx`, in empty directories. Only the @toolhost
// scope is served by the local registry; third-party dependencies come from the run's mirror
// on loopback (npm-mirror.ts).
const PUBLISHED = publishedPackages();

let registry: ChildProcess | undefined;
let registryUrl: string;
let npmrc: string;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startVerdaccio(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-registry-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      `  htpasswd: { file: ${join(dir, 'htpasswd')}, max_users: 10 }`,
      'uplinks: {}',
      'packages:',
      "  '**': { access: $all, publish: $authenticated }",
      'log: { type: stdout, format: pretty, level: error }',
    ].join('\n'),
  );
  const port = await freePort();
  // Node itself, not the .bin shim: with the node22 package installed here the shim runs
  // Verdaccio under a second shell, which a kill of the child stopped while Verdaccio lived on.
  const bin = join(import.meta.dirname, '..', 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  registry = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 300; i += 1) {
    const up = await fetch(new URL('-/ping', url)).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return url;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('Verdaccio did not start');
}

/** A user of the local registry (npm adduser's request), and the token it answers. */
async function addUser(url: string): Promise<string> {
  const res = await fetch(new URL('-/user/org.couchdb.user:publisher', url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'publisher', password: 'publisher-password-1' }),
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token) throw new Error(`no token from the registry: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

beforeAll(async () => {
  const [tarballs, url] = await Promise.all([packedWorkspace(), startVerdaccio()]);
  registryUrl = url;
  const token = await addUser(registryUrl);
  npmrc = join(mkdtempSync(join(tmpdir(), 'toolhost-npmrc-')), '.npmrc');
  const host = new URL(registryUrl).host;
  writeFileSync(npmrc, `@toolhost:registry=${registryUrl}\n//${host}/:_authToken=${token}\n`);
  // Each package is a registry document of its own: published side by side.
  await Promise.all(
    PUBLISHED.map((pkg) =>
      npmAsync(
        ['publish', tarballs[pkg]!, '--registry', registryUrl, '--userconfig', npmrc, '--loglevel=error'],
        tmpdir(),
      ),
    ),
  );
}, 300_000);
// Waits for the registry to exit (SIGKILL after 5 s), so that none outlives the run.
afterAll(async () => {
  if (!registry || registry.exitCode !== null || registry.signalCode !== null) return;
  const exited = once(registry, 'exit');
  registry.kill();
  const stubborn = setTimeout(() => registry?.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(stubborn);
});

const listIn = (dir: string, command: string, args: string[]) =>
  execFileSync(command, args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      npm_config_userconfig: npmrc,
      npm_config_registry: inject('npmMirror'),
      // The run's own cache: npx runs what it installed before (kept under the cache's `_npx`,
      // by package name), which in the user's cache an earlier run built from older sources.
      npm_config_cache: inject('npmCache'),
    },
  });

describe('installed from a registry', () => {
  it('every package is published there, at its version', async () => {
    await Promise.all(
      PUBLISHED.map(async (pkg) => {
        const { name, version } = JSON.parse(
          readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'),
        ) as {
          name: string;
          version: string;
        };
        // The registry's document for the name, as npm reads it (`npm view <name> version` prints
        // the version `latest` names), and the tarball it points to.
        const res = await fetch(new URL(name.replace('/', '%2f'), registryUrl));
        expect(res.status, name).toBe(200);
        const doc = (await res.json()) as {
          'dist-tags': Record<string, string>;
          versions: Record<string, { version: string; dist: { tarball: string } }>;
        };
        expect(doc['dist-tags'].latest, name).toBe(version);
        expect(doc.versions[version]?.version, name).toBe(version);
        const tarball = await fetch(doc.versions[version]!.dist.tarball);
        expect(tarball.status, name).toBe(200);
        await tarball.arrayBuffer();
      }),
    );
  });

  it('npm i -g in an empty directory, then the tools listed from another, and the host’s types compile in a program that embeds it', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'toolhost-global-'));
    npm(
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--userconfig',
        npmrc,
        '--loglevel=error',
        '@toolhost/host',
        '@toolhost/plugin-crm-events',
      ],
      mkdtempSync(join(tmpdir(), 'toolhost-empty-')),
    );
    const listed = listIn(
      mkdtempSync(join(tmpdir(), 'toolhost-anywhere-')),
      join(prefix, 'bin', 'toolhost'),
      ['list'],
    );
    expect(listed).toContain('CrmEventsApi.ListEventTypes (read-only)');
    expect(listed).toMatch(/^12 tools$/m);

    // The host's and the engine's published types, as an embedding runtime compiles against
    // them (a Node program, so with Node's types), every declaration file checked: the engine's
    // through the host's, as npm installed it beside the host's other dependencies.
    const lib = join(prefix, 'lib');
    writeProgram(
      lib,
      'embed.ts',
      [
        "import { createHost, HostServices, type Host, type HostOptions } from '@toolhost/host';",
        "type HttpSender = NonNullable<HostOptions['httpSender']>;",
        'export const token = HostServices.httpSender;',
        'export async function embed(sender: HttpSender): Promise<Host> {',
        "  return createHost({ plugins: ['@toolhost/plugin-crm-events'] }, { httpSender: sender });",
        '}',
      ].join('\n'),
      { types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] },
    );
    const out = tsc(lib, ['--listFiles']).split('\n');
    expect(out.filter((line) => line && !line.startsWith('/'))).toEqual([]);
    expect(out).toContainEqual(expect.stringMatching(/\/@toolhost\/engine\/dist\/index\.d\.ts$/));
  }, 240_000);

  it('npx -y @toolhost/server, as the registry entry runs it, serves all five tool sets from an empty directory', () => {
    const listed = listIn(mkdtempSync(join(tmpdir(), 'toolhost-npx-server-')), 'npx', [
      '-y',
      '--prefer-offline',
      '@toolhost/server',
      'list',
    ]);
    for (const toolSet of [
      'CrmEventsApi',
      'CrmAutomationApi',
      'CrmMarketingApi',
      'GridApi',
      'CdpPipelinesApi',
    ])
      expect(listed).toContain(`${toolSet}.`);
    expect(listed).toMatch(/^214 tools$/m);
  }, 240_000);

  it('npm i -g @toolhost/server in an empty directory, then all 214 tools listed from another', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'toolhost-global-server-'));
    npm(
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--userconfig',
        npmrc,
        '--loglevel=error',
        '@toolhost/server',
      ],
      mkdtempSync(join(tmpdir(), 'toolhost-empty-')),
    );
    const listed = listIn(
      mkdtempSync(join(tmpdir(), 'toolhost-anywhere-')),
      join(prefix, 'bin', 'toolhost'),
      ['list'],
    );
    expect(listed).toMatch(/^214 tools$/m);
  }, 240_000);

  it('npx, as an MCP client entry runs it, from an empty directory', () => {
    const listed = listIn(mkdtempSync(join(tmpdir(), 'toolhost-npx-')), 'npx', [
      '-y',
      '--prefer-offline',
      '-p',
      '@toolhost/host',
      '-p',
      '@toolhost/plugin-grid',
      'toolhost',
      'list',
    ]);
    expect(listed).toContain('GridApi.');
    expect(listed).toMatch(/^96 tools$/m);
  }, 240_000);
});
