import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '../mcp/sdk.js';
import { StdioWire } from './stdio-wire.js';

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

describe('StdioWire', () => {
  it('writes the answers of one turn in one write, in order, and the next turn apart', async () => {
    const { out, writes } = recordingStdout();
    const transport = new StdioWire(new PassThrough(), out, () => {}, 128);
    await Promise.all([transport.send(answer(1)), transport.send(answer(2)), transport.send(answer(3))]);
    await new Promise((r) => setImmediate(r));
    await transport.send(answer(4));
    await new Promise((r) => setImmediate(r));
    // One write per turn, of the turn's lines joined.
    expect(writes.map((w) => w.length)).toEqual([1, 1]);
    const ids = (write: string[]) =>
      write
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: number }).id);
    expect(writes.map(ids)).toEqual([[1, 2, 3], [4]]);
  });

  it('writes what it holds when closed, before the turn ends', async () => {
    const { out, writes } = recordingStdout();
    const transport = new StdioWire(new PassThrough(), out, () => {}, 128);
    await transport.send(answer(7));
    expect(writes).toEqual([]);
    await transport.close();
    expect(writes.flat()).toEqual([`${JSON.stringify(answer(7))}\n`]);
  });

  it('hands each line to the route parsed (a byte order mark before it ignored), and answers a line that is not JSON with a parse error', async () => {
    const { out, writes } = recordingStdout();
    const lines = new PassThrough();
    const routed: unknown[] = [];
    const errors: string[] = [];
    const wire = new StdioWire(lines, out, (m) => routed.push(m), 128);
    wire.onerror = (e) => errors.push(e.message);
    lines.write(`\uFEFF${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`);
    lines.write('{"jsonrpc": "2.0", "id": 2, "method": \n');
    lines.write('\n');
    lines.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\r\n`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(routed).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(writes.flat().map((line) => JSON.parse(line))).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON.' } },
    ]);
    expect(errors).toEqual([expect.stringMatching(/not JSON/)]);
  });

  it('closes when stdin ends, and refuses to send after', async () => {
    const { out } = recordingStdout();
    const lines = new PassThrough();
    const wire = new StdioWire(lines, out, () => {}, 128);
    let closed = 0;
    wire.onclose = () => {
      closed += 1;
    };
    lines.end();
    lines.resume();
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(1);
    await expect(wire.send(answer(1))).rejects.toThrow(/closed/);
  });

  it('makes senders wait while stdout is over its mark, until it drains', async () => {
    let finish: (() => void) | undefined;
    const out = new Writable({
      highWaterMark: 16,
      write(_chunk, _encoding, done) {
        finish = done;
      },
    });
    const wire = new StdioWire(new PassThrough(), out, () => {}, 128);
    await wire.send(answer(1));
    await new Promise((r) => setImmediate(r));
    // The first turn's write is over the mark and not yet done: the next sender waits for it.
    let sent = false;
    const second = wire.send(answer(2)).then(() => {
      sent = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(false);
    finish?.();
    await new Promise((r) => setImmediate(r));
    finish?.();
    await second;
    expect(sent).toBe(true);
  });

  it('stops reading stdin while stdout is over its mark, and reads on once it drains', async () => {
    const total = 20_000;
    let made = 0;
    // stdin as a client that writes requests as fast as the host takes them: a chunk of lines
    // per turn of the loop, as a pipe is read.
    const lines = new Readable({
      read() {
        setImmediate(() => {
          if (made === total) this.push(null);
          for (let i = 0; i < 100 && made < total; i++)
            this.push(`{"jsonrpc":"2.0","id":${++made},"method":"ping"}\n`);
        });
      },
    });
    let blocked = true;
    const stalled: (() => void)[] = [];
    const out = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        if (blocked) stalled.push(done);
        else done();
      },
    });
    let routed = 0;
    const until = async (check: () => boolean) => {
      while (!check()) await new Promise((r) => setImmediate(r));
    };
    const wire = new StdioWire(
      lines,
      out,
      (message) => {
        routed += 1;
        void wire.write({
          jsonrpc: '2.0',
          id: (message as { id: number }).id,
          result: { answer: 'x'.repeat(200) },
        });
      },
      128,
    );
    // A client that never reads stdout: the answers it is not taking are no reason to read more.
    await until(() => routed === total || lines.isPaused());
    const whileBlocked = routed;
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(routed).toBe(whileBlocked);
    expect(routed).toBeLessThan(total);
    blocked = false;
    for (const done of stalled.splice(0)) done();
    await until(() => routed === total);
    await wire.close();
  });
  it('waits for no answer once closed: none could be written', async () => {
    const { out } = recordingStdout();
    const lines = new PassThrough();
    const wire = new StdioWire(lines, out, () => {}, 128);
    lines.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' })}\n`);
    await new Promise((r) => setImmediate(r));
    await wire.close();
    const started = Date.now();
    await wire.answered(5000);
    expect(Date.now() - started).toBeLessThan(1000);
  });
  it('waits on closing for the answer of each request read, not for one the client cancelled', async () => {
    const { out } = recordingStdout();
    const lines = new PassThrough();
    const wire = new StdioWire(lines, out, () => {}, 128);
    for (const id of [1, 2]) lines.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call' })}\n`);
    lines.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })}\n`,
    );
    await new Promise((r) => setImmediate(r));
    let answered = false;
    const waiting = wire.answered(5000).then(() => {
      answered = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    await wire.send(answer(1));
    const started = Date.now();
    await waiting;
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a request past 128 unanswered, saying why, and serves again once answers go out', async () => {
    const { out, writes } = recordingStdout();
    const lines = new PassThrough();
    const routed: number[] = [];
    const wire = new StdioWire(lines, out, (m) => routed.push((m as { id: number }).id), 128);
    const request = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call' })}\n`;
    // A client writing requests far faster than it reads answers: each answer would be held.
    for (let id = 1; id <= 200; id += 1) lines.write(request(id));
    await new Promise((r) => setImmediate(r));
    expect(routed).toEqual(Array.from({ length: 128 }, (_, i) => i + 1));
    await new Promise((r) => setImmediate(r));
    const refused = writes
      .flat()
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number; error: { code: number; message: string } });
    expect(refused.map((a) => a.id)).toEqual(Array.from({ length: 72 }, (_, i) => i + 129));
    expect(refused[0]!.error.message).toMatch(/more than 128 requests unanswered/);
    await wire.send(answer(1));
    lines.write(request(201));
    await new Promise((r) => setImmediate(r));
    expect(routed.at(-1)).toBe(201);
    await wire.close();
  });

  it('refuses a request under an id still in flight under no id, routing it not, and takes the id again once answered', async () => {
    const { out, writes } = recordingStdout();
    const lines = new PassThrough();
    const routed: unknown[] = [];
    const wire = new StdioWire(lines, out, (m) => routed.push(m), 128);
    const request = (id: string, name: string) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } })}\n`;
    lines.write(request('a', 'first'));
    lines.write(request('a', 'second'));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // Only the first runs; the refusal is under no id, so the client cannot take it for the first's answer.
    expect(routed).toEqual([JSON.parse(request('a', 'first'))]);
    const written = writes
      .flat()
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(written).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: request id a is already in use' },
      },
    ]);
    // Nor does a malformed message under that id answer it, or free it.
    lines.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: [] })}\n`);
    lines.write(request('a', 'again'));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(routed).toHaveLength(1);
    const after = writes
      .flat()
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(after.map((a) => a.id)).toEqual([null, null, null]);
    await wire.send({ jsonrpc: '2.0', id: 'a', result: {} });
    lines.write(request('a', 'third'));
    await new Promise((r) => setImmediate(r));
    expect(routed).toHaveLength(2);
    await wire.close();
  });

  it('answers a message that is not JSON-RPC 2.0 with Invalid Request, routing nothing and counting it in no bound', async () => {
    const { out, writes } = recordingStdout();
    const lines = new PassThrough();
    const routed: unknown[] = [];
    const wire = new StdioWire(lines, out, (m) => routed.push(m), 128);
    const bad = [
      { id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' },
      { jsonrpc: '2.0', id: 4, method: 'ping', params: 'x' },
      { jsonrpc: '2.0', id: 5, method: 'ping', result: {} },
      [{ jsonrpc: '2.0', id: 6, method: 'ping' }],
      // Shapes the SDK's schemas refuse, and drops unanswered.
      { jsonrpc: '2.0', id: 8, method: 'ping', params: [] },
      { jsonrpc: '2.0', id: 9, method: 'ping', foo: 1 },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: 1e300, method: 'ping' },
      { jsonrpc: '2.0', id: 12, method: 'ping', params: { _meta: 5 } },
      {
        jsonrpc: '2.0',
        id: 13,
        method: 'ping',
        params: { _meta: { 'io.modelcontextprotocol/related-task': 5 } },
      },
      {
        jsonrpc: '2.0',
        id: 14,
        method: 'ping',
        params: { _meta: { 'io.modelcontextprotocol/related-task': {} } },
      },
      { jsonrpc: '2.0', id: 15, method: 'ping', params: { _meta: null } },
    ];
    // More of them than requests may be unanswered: none is held as if it were answered later.
    for (let i = 0; i < 30; i += 1) for (const m of bad) lines.write(`${JSON.stringify(m)}\n`);
    lines.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(routed).toEqual([{ jsonrpc: '2.0', id: 7, method: 'ping' }]);
    const answers = writes
      .flat()
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: unknown; error: { code: number } });
    expect(answers.slice(0, 14)).toEqual(
      [1, null, null, 4, 5, null, 8, 9, null, null, 12, 13, 14, 15].map((id) => ({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      })),
    );
    expect(answers).toHaveLength(420);
    await wire.close();
  });

  it("answers no answer it cannot take: its id is one of the server's requests, not of the client's", async () => {
    const { out, writes } = recordingStdout();
    const lines = new PassThrough();
    const routed: unknown[] = [];
    const wire = new StdioWire(lines, out, (m) => routed.push(m), 128);
    lines.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' })}\n`);
    lines.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, result: {}, error: null })}\n`);
    lines.write(`${JSON.stringify({ id: 0, result: {} })}\n`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(routed).toEqual([{ jsonrpc: '2.0', id: 0, method: 'tools/list' }]);
    expect(writes.flat().join('')).toBe('');
    await wire.close();
  });
});
