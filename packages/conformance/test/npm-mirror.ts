import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, lstatSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

// The tests that install with npm (a global install, the bundle, a new plugin, the local
// registry's uplink) take their third-party dependencies from here: a registry on loopback that
// serves the packages pnpm installed for this workspace, from its virtual store. So those tests
// reach nothing beyond 127.0.0.1 and run the same with or without a network, and a dependency
// the workspace does not have fails at once with npm's own E404 instead of a download.
// The workspace's own packages are not served: they come from tarballs or the local registry.

export interface NpmMirror {
  url: string;
  close(): Promise<void>;
}

/** name → version → the installed package's directory. */
type StoreIndex = Map<string, Map<string, string>>;

/** The packages in pnpm's virtual store: `.pnpm/<id>/node_modules/<name>` is the package itself, its siblings are links. */
export function indexVirtualStore(store: string): StoreIndex {
  const index: StoreIndex = new Map();
  const add = (dir: string) => {
    if (!existsSync(join(dir, 'package.json')) || lstatSync(dir).isSymbolicLink()) return;
    const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (!name || !version || name.startsWith('@toolhost/')) return;
    const versions = index.get(name) ?? new Map<string, string>();
    if (!versions.has(version)) versions.set(version, dir);
    index.set(name, versions);
  };
  for (const id of readdirSync(store)) {
    const modules = join(store, id, 'node_modules');
    if (!existsSync(modules)) continue;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (entry.isSymbolicLink()) continue;
      const dir = join(modules, entry.name);
      if (!entry.name.startsWith('@')) add(dir);
      else
        for (const scoped of readdirSync(dir, { withFileTypes: true }))
          if (!scoped.isSymbolicLink()) add(join(dir, scoped.name));
    }
  }
  return index;
}

/** Orders release versions above pre-releases, then numerically: enough to name `latest`. */
function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [release = '', pre] = v.split(/-(.*)/s);
    return { parts: release.split('.').map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.parts[i] !== y.parts[i]) return (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre.localeCompare(y.pre, 'en', { numeric: true });
}

/** The registry document npm reads for a name: each version's own package.json and where its tarball is. */
function packument(name: string, versions: Map<string, string>, base: string): object {
  const docs: Record<string, object> = {};
  for (const [version, dir] of versions) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as object;
    docs[version] = {
      ...manifest,
      _id: `${name}@${version}`,
      dist: { tarball: `${base}/-/tarball/${encodeURIComponent(name)}/${version}.tgz` },
    };
  }
  const latest = [...versions.keys()].sort(compareVersions).at(-1);
  return { name, 'dist-tags': { latest }, versions: docs };
}

/**
 * The package directory as npm packs it: every file under `package/`, hard links written as the
 * files they are (pnpm's store links identical files), owned by no one in particular.
 */
async function packDirectory(dir: string, into: string): Promise<void> {
  const tar = spawn(
    'tar',
    [
      '-c',
      '-C',
      dir,
      '--hard-dereference',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--transform',
      's,^\\.,package,',
      '.',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const partial = `${into}.${process.pid}.partial`;
  const exited = once(tar, 'exit');
  await pipeline(tar.stdout, createGzip({ level: 1 }), createWriteStream(partial));
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`tar exited with ${code} packing ${dir}`);
  renameSync(partial, into);
}

function answer(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the mirror of `store` (a `node_modules/.pnpm`), keeping the tarballs it packs in `work`. */
export async function startNpmMirror(store: string, work: string): Promise<NpmMirror> {
  const index = indexVirtualStore(store);
  const packing = new Map<string, Promise<string>>();
  const tarball = (name: string, version: string, dir: string) => {
    const key = `${name}@${version}`;
    let packed = packing.get(key);
    if (!packed) {
      const file = join(work, `${encodeURIComponent(key)}.tgz`);
      packed = packDirectory(dir, file).then(() => file);
      packing.set(key, packed);
    }
    return packed;
  };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://mirror').pathname);
    const base = `http://${req.headers.host}`;
    const file = /^\/-\/tarball\/(.+)\/([^/]+)\.tgz$/.exec(path);
    if (file) {
      const [, name = '', version = ''] = file;
      const dir = index.get(name)?.get(version);
      if (!dir) return answer(res, 404, { error: 'not_found' });
      tarball(name, version, dir).then(
        (packed) =>
          res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(packed)),
        (e: Error) => answer(res, 500, { error: e.message }),
      );
      return;
    }
    const versions = index.get(path.slice(1));
    if (!versions) return answer(res, 404, { error: 'not_found' });
    answer(res, 200, packument(path.slice(1), versions, base));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
