import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '../mcp/sdk.js';
import { BatchedStdioServerTransport } from './batched-stdio-transport.js';

/** A stdout that records each system-call-sized write: one entry per `_write` or `_writev`. */
function recordingStdout() {
  const writes: string[][] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => String(c.chunk)));
      done();
    },
  });
  return { out, writes };
}

const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

describe('BatchedStdioServerTransport', () => {
  it('writes the answers of one turn together, in order, and the next turn apart', async () => {
    const { out, writes } = recordingStdout();
    const transport = new BatchedStdioServerTransport(new PassThrough(), out);
    await Promise.all([transport.send(answer(1)), transport.send(answer(2)), transport.send(answer(3))]);
    await new Promise((r) => setImmediate(r));
    await transport.send(answer(4));
    await new Promise((r) => setImmediate(r));
    expect(writes.map((w) => w.map((line) => (JSON.parse(line) as { id: number }).id))).toEqual([
      [1, 2, 3],
      [4],
    ]);
  });

  it('writes what it holds when closed, before the turn ends', async () => {
    const { out, writes } = recordingStdout();
    const transport = new BatchedStdioServerTransport(new PassThrough(), out);
    await transport.send(answer(7));
    expect(writes).toEqual([]);
    await transport.close();
    expect(writes.flat()).toEqual([`${JSON.stringify(answer(7))}\n`]);
  });
});
