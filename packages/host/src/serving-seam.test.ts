import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The serving layers (http/, stdio/, mcp/) take what they need from the `Host` API (host-api.ts,
// `host.serving` from serving-support.ts, replicas.ts), never from the host's container or the
// modules that compose it: the next protocol revision changes these layers, and should not
// have to know how the host composes its services. Read as an import graph, not as text:
// whatever a serving module imports, directly or through any other module, counts.
const src = dirname(fileURLToPath(import.meta.url));

/** The host's source files (no tests, no test support), by path from src/. */
function sourceFiles(dir = src): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test-support' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [relative(src, path)] : [];
  });
}

interface Import {
  /** A file under src/, or a package's name. */
  target: string;
  /** Erased at run time: `import type`, `export type`, or every name marked `type`. */
  typeOnly: boolean;
}

const STATIC = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s+['"]([^'"]+)['"]/gms;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(src, file), 'utf8');
  const found: Import[] = [];
  for (const [, , typeKeyword, names = '', spec = ''] of text.matchAll(STATIC)) {
    const braced = /^\{([^}]*)\}$/.exec(names.trim())?.[1];
    const allTyped =
      braced !== undefined &&
      braced.trim() !== '' &&
      braced
        .split(',')
        .filter((n) => n.trim())
        .every((n) => /^\s*type\s/.test(n));
    found.push({ target: resolveSpec(file, spec), typeOnly: typeKeyword !== undefined || allTyped });
  }
  for (const [, spec = ''] of text.matchAll(DYNAMIC))
    found.push({ target: resolveSpec(file, spec), typeOnly: false });
  return found;
}

function resolveSpec(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return relative(src, resolve(src, dirname(from), spec)).replace(/\.js$/, '.ts');
}

const files = sourceFiles();
const graph = new Map(files.map((f) => [f, importsOf(f)]));

/** Every module a file loads when it runs: its value imports, and theirs, to the end. */
function valueReach(file: string): Set<string> {
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length) {
    for (const { target, typeOnly } of graph.get(queue.pop()!) ?? []) {
      if (typeOnly || seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return seen;
}

/**
 * What composes the host: its container, its services, the options it is made with (an
 * embedder's container among them) and the plugins it loads.
 */
const COMPOSING =
  /^(host\.ts|host-options\.ts|assemble-host\.ts|services\.ts|plugins\/|cli\/|cli\.ts|tsyringe$)/;

const serving = files.filter((f) => /^(http|stdio|mcp)\//.test(f));

describe('the serving layers (http/, stdio/, mcp/)', () => {
  it('each hold their files', () => {
    expect(serving.filter((f) => f.startsWith('http/')).length).toBeGreaterThan(8);
    expect(serving.filter((f) => f.startsWith('stdio/')).length).toBeGreaterThan(1);
    expect(serving.filter((f) => f.startsWith('mcp/')).length).toBeGreaterThan(10);
  });

  it('never load what composes the host, directly or through another module', () => {
    const reaching = serving.flatMap((f) =>
      [...valueReach(f)].filter((t) => COMPOSING.test(t)).map((t) => `${f} -> ${t}`),
    );
    expect(reaching).toEqual([]);
  });

  it('never reach the container through what they load, nor name the modules that hold it', () => {
    // A type import of the host lets a module use its container without loading host.ts: the
    // modules the serving layers run, themselves included, may not import it even as a type.
    const running = new Set(serving.flatMap((f) => [f, ...valueReach(f)]).filter((f) => graph.has(f)));
    const naming = [...running].flatMap((f) =>
      (graph.get(f) ?? [])
        .filter(({ target }) => COMPOSING.test(target))
        .map(({ target }) => `${f} -> ${target}`),
    );
    const touching = [...running].filter((f) =>
      /\.container\b|containerOf\(/.test(
        readFileSync(join(src, f), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, ''),
      ),
    );
    expect(naming).toEqual([]);
    expect(touching).toEqual([]);
  });

  it('import the SDK only through mcp/sdk.ts', () => {
    const direct = serving.filter(
      (f) =>
        f !== 'mcp/sdk.ts' && (graph.get(f) ?? []).some((i) => i.target.startsWith('@modelcontextprotocol/')),
    );
    expect(direct).toEqual([]);
  });
});

describe("the host's import graph", () => {
  it('has no circle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const { target } of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('keeps the store below the MCP layer and the transports', () => {
    const upward = files
      .filter((f) => f.startsWith('store/'))
      .flatMap((f) => (graph.get(f) ?? []).map((i) => `${f} -> ${i.target}`))
      .filter((edge) => / -> (mcp|http|stdio)\//.test(edge));
    expect(upward).toEqual([]);
  });
});

/**
 * The host's layers, top to bottom (docs/architecture.md draws them): a module imports, as a
 * value or a type, only from its own layer or the ones below. Every source file is placed.
 */
const LAYERS: readonly (readonly [string, RegExp])[] = [
  ['entry: the CLI and the package index', /^(cli\.ts|cli\/|index\.ts)/],
  [
    'transport: HTTP, stdio, in process',
    /^(http\/|stdio\/|(ai-sdk|langchain|openai-agents|in-process-catalog)\.ts$)/,
  ],
  ['era and MCP server', /^mcp\//],
  ['host API', /^(host|host-api|host-options|serving-support|tool-names|unknown-tool)\.ts$/],
  [
    // replicas.ts is the port the store implements (types only): the serving layers read it
    // through host.serving, and the store names the types it fills in.
    'runtime',
    /^(auth\/|store\/|observability\/|plugins\/|(assemble-host|call-lifecycle|call-waits|connections|readiness|replicas|services|write-safety-on-demand)\.ts$)/,
  ],
  ['config', /^config\//],
  ['foundation: errors and logging', /^(host-error|logger|log-redaction)\.ts$/],
];

/** Imports running up the layers, each with why it stays: at most 3. */
const ALLOWED_UPWARD: readonly string[] = [];

const layerOf = (file: string) => LAYERS.findIndex(([, pattern]) => pattern.test(file));

/** Every import from a lower layer to a higher one, as `from -> to`. */
function upwardImports(): string[] {
  return files.flatMap((f) =>
    (graph.get(f) ?? [])
      .filter(({ target }) => graph.has(target) && layerOf(target) < layerOf(f))
      .map(({ target }) => `${f} -> ${target}`),
  );
}

describe("the host's layers", () => {
  it('place every source file', () => {
    expect(files.filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it('import only from their own layer or below, but for the few allowed', () => {
    const upward = upwardImports();
    expect(ALLOWED_UPWARD.length).toBeLessThanOrEqual(3);
    expect(upward.filter((edge) => !ALLOWED_UPWARD.includes(edge))).toEqual([]);
    // An allowance nothing uses any more goes (where both its modules are still in the host),
    // so that the list stays the truth.
    const unused = ALLOWED_UPWARD.filter(
      (edge) => !upward.includes(edge) && edge.split(' -> ').every((f) => graph.has(f)),
    );
    expect(unused).toEqual([]);
  });
});
