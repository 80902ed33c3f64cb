import { describe, expect, it } from 'vitest';
import { idOfOversized, LineLimit } from './stdio-line-limit.js';

async function run(limit: number, chunks: string[]) {
  const dropped: { head: string; tail: string; bytes: number }[] = [];
  const stream = new LineLimit(limit, (line) => dropped.push(line));
  const out: string[] = [];
  stream.on('data', (c: Buffer) => out.push(c.toString()));
  for (const c of chunks) stream.write(Buffer.from(c));
  stream.end();
  await new Promise((r) => stream.on('end', r));
  return { out, dropped };
}

describe('LineLimit', () => {
  it('passes whole lines, joined across chunks, up to the limit itself', async () => {
    const { out, dropped } = await run(8, ['ab', 'c\nde', 'fghij\n1234567\n']);
    expect(out).toEqual(['abc\n', 'defghij\n', '1234567\n']);
    expect(dropped).toEqual([]);
  });

  it('drops a longer line, keeping its edges, and goes on with the next', async () => {
    const { out, dropped } = await run(8, ['ok\n{"id":', '"x","pad":"xxxxxxxx', 'xx"}\nnext\n']);
    expect(out).toEqual(['ok\n', 'next\n']);
    expect(dropped).toHaveLength(1);
    expect(idOfOversized(dropped[0]!.head, dropped[0]!.tail)).toBe('x');
    expect(dropped[0]!.bytes).toBe(30); // with its newline
  });

  it('finds the id at either end, or none', () => {
    expect(idOfOversized('{"method":"x"', ',"jsonrpc":"2.0","id":7}\n')).toBe(7);
    expect(idOfOversized('{"jsonrpc":"2.0","id":"a\\"b","method"', '"}}\n')).toBe('a"b');
    expect(idOfOversized('{"method":"x"', '{"id":3}}}\n')).toBeNull();
  });
});
