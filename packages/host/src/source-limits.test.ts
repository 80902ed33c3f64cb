import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
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

/** Every function, method, accessor and arrow with a body, as `file:line name (lines)`. */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
        found.push(`${file}:${first + 1} ${named?.getText(source) ?? '(anonymous)'} (${lines})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
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
