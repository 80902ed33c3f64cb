import { PassThrough, Writable } from 'node:stream';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { Server } from '../mcp/sdk.js';
import { RevisionRequests } from './revision-requests.js';
import { StdioWire } from './stdio-wire.js';

const REVISION = '2026-07-28';

/** A server whose connection cannot be made: already connected elsewhere, as the SDK refuses. */
async function serverThatCannotConnect(): Promise<Server> {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  await server.connect(InMemoryTransport.createLinkedPair()[0]);
  return server;
}

function stdioOf() {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return {
    wire: new StdioWire(new PassThrough(), out, () => {}, 128),
    answers: () => lines.map((l) => JSON.parse(l)),
  };
}

const call = (id: number) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name: 'x', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION } },
});

describe('RevisionRequests', () => {
  it('answers a request whose revision server failed to connect, and forgets it', async () => {
    const { wire, answers } = stdioOf();
    const errors: Error[] = [];
    const requests = new RevisionRequests(await serverThatCannotConnect(), REVISION, wire, (e) =>
      errors.push(e),
    );
    expect(requests.take(call(7))).toBe(true);
    await expect.poll(answers).toHaveLength(1);
    // The client gets an internal error for its id, without the cause, which goes to the log.
    expect(answers()[0]).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error' },
    });
    expect(errors.map((e) => e.message).join()).toMatch(/already connected/i);
    // Nothing of it is held: a late cancellation of it is no longer the revision server's.
    const cancel = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: 7 } };
    expect(requests.take(cancel)).toBe(false);
  });

  it('leaves a request cancelled before the failure unanswered, as the SDK does', async () => {
    const { wire, answers } = stdioOf();
    const errors: Error[] = [];
    const requests = new RevisionRequests(await serverThatCannotConnect(), REVISION, wire, (e) =>
      errors.push(e),
    );
    requests.take(call(8));
    requests.take({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } });
    await expect.poll(() => errors.length).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(answers()).toEqual([]);
  });
});
