import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The host's limits (docs/development.md), kept where its write safety went: no source file
// over 400 lines, no function over 60. Split by job, never by squeezing lines.
const src = dirname(fileURLToPath(import.meta.url));
const sources = readdirSync(src)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
  .map((name) => ({ name, text: readFileSync(join(src, name), 'utf8') }));

/** Each function, method, accessor and arrow with a body, as its first line and its length. */
function functionLengths(name: string, text: string): { at: string; lines: number }[] {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const line = (position: number) => file.getLineAndCharacterOfPosition(position).line;
  const found: { at: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body)
      found.push({
        at: `${name}:${line(node.getStart(file)) + 1}`,
        lines: line(node.end) - line(node.getStart(file)) + 1,
      });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("write safety's source", () => {
  it('has no file over 400 lines', () => {
    expect(sources.length).toBeGreaterThan(5);
    const long = sources.filter(({ text }) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0) > 400);
    expect(long.map(({ name }) => name)).toEqual([]);
  });

  it('has no function over 60 lines', () => {
    const long = sources.flatMap(({ name, text }) => functionLengths(name, text)).filter((f) => f.lines > 60);
    expect(long).toEqual([]);
  });
});
