import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

// Files and functions a reader can hold (docs/development.md): no source file over 400 lines, no
// function over 60. Split by job, never by squeezing lines.
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 60;

const src = dirname(fileURLToPath(import.meta.url));

/**
 * Not counted: tests and their support, and the generated config types. Every other package is
 * held to the same limits by the linter (biome.json's overrides); this test counts a function
 * from its first line, signature included, as #37 measured the host.
 */
const EXEMPT = /(\.test\.ts$|^test-support\/|\.generated\.ts$)/;

function sourceFiles(dir = src): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    const file = relative(src, path);
    return name.endsWith('.ts') && !EXEMPT.test(file) ? [file] : [];
  });
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

const files = sourceFiles().map((file) => ({ file, text: readFileSync(join(src, file), 'utf8') }));

type Node = { type: string; start: number; end: number; [key: string]: unknown };
const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** The method or property whose value `fn` is: its key names the function and starts its signature. */
const memberOf = (fn: Node, parent: Node | undefined) =>
  parent && 'key' in parent && parent.value === fn ? parent : undefined;

/** The text a function is known by: its own name, its member's key, its variable's. */
function nameOf(fn: Node, parent: Node | undefined, member: Node | undefined, text: string): string {
  const node =
    (fn.id as Node | null) ??
    (parent?.type === 'VariableDeclarator' ? (parent.id as Node) : undefined) ??
    (member?.key as Node | undefined);
  return node ? text.slice(node.start, node.end) : '(anonymous)';
}

/**
 * Every function, method, accessor and arrow with a body, as `file:line name (lines)`. A method
 * counts from its key (its modifiers' line), as its signature starts there.
 */
function longFunctions(file: string, text: string): string[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const found: string[] = [];
  const visit = (node: Node, parent: Node | undefined) => {
    if (FUNCTIONS.has(node.type) && node.body) {
      const member = memberOf(node, parent);
      const first = lineOf((member ?? node).start);
      const lines = lineOf(node.end) - first + 1;
      if (lines > MAX_FUNCTION_LINES)
        found.push(`${file}:${first + 1} ${nameOf(node, parent, member, text)} (${lines})`);
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) if (isNode(item)) visit(item, node);
      if (isNode(value)) visit(value, node);
    }
  };
  visit(parseSync(file, text).program as unknown as Node, undefined);
  return found;
}

describe("the host's source", () => {
  it('is read whole', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .filter(({ text }) => lineCount(text) > MAX_FILE_LINES)
      .map(({ file, text }) => `${file} (${lineCount(text)})`);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap(({ file, text }) => longFunctions(file, text))).toEqual([]);
  });
});
