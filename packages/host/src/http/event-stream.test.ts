import type { ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { EventStream, onClientLeft } from './event-stream.js';

/** A response its client has stopped reading: `held` bytes wait in it, and each write is kept. */
function unreadResponse(held: number) {
  const written: string[] = [];
  const res = {
    writableLength: held,
    writeHead: () => res,
    flushHeaders: () => {},
    once: () => res,
    writableEnded: false,
    end: () => {},
    write: (chunk: string) => {
      written.push(chunk);
      return false;
    },
  };
  return { res: res as unknown as ServerResponse, written };
}

describe('EventStream', () => {
  it('drops progress and log lines once a MiB waits unread, never an answer or a withdrawn question', () => {
    const { res, written } = unreadResponse(2 ** 20 + 1);
    const stream = new EventStream(res);
    stream.write({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    });
    stream.write({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    stream.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    stream.write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    stream.write({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} });
    stream.write({ jsonrpc: '2.0', id: 1, result: {} });
    const methods = written.map((w) => /"method":"([^"]+)"/.exec(w)?.[1] ?? 'answer');
    expect(methods).toEqual([
      'notifications/cancelled',
      'notifications/tools/list_changed',
      'elicitation/create',
      'answer',
    ]);
    stream.end();
  });

  it('writes every notification while the client keeps up', () => {
    const { res, written } = unreadResponse(0);
    const stream = new EventStream(res);
    stream.write({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    });
    stream.write({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    expect(written).toHaveLength(2);
    stream.end();
  });
});

describe('onClientLeft', () => {
  /** A real exchange on loopback: the handler gets the response, the client hangs up before any answer. */
  async function exchange(clientLeaves: boolean): Promise<{ res: ServerResponse; done: () => void }> {
    const { createServer, request } = await import('node:http');
    return new Promise((resolve) => {
      const server = createServer((_req, res) => {
        const done = () => server.close();
        if (!clientLeaves) return res.end('ok', () => resolve({ res, done }));
        res.once('close', () => resolve({ res, done }));
      });
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        const client = request({ host: '127.0.0.1', port, method: 'POST' }, (r) => r.resume());
        client.on('error', () => {});
        client.end('{}', () => {
          if (clientLeaves) setTimeout(() => client.destroy(), 50);
        });
      });
    });
  }

  it('gives a stream made for a client gone already no keep-alive timer', async () => {
    const left = await exchange(true);
    const cleared = vi.spyOn(globalThis, 'clearInterval');
    const stream = new EventStream(left.res);
    expect(cleared).toHaveBeenCalledWith((stream as unknown as { keepAlive: NodeJS.Timeout }).keepAlive);
    cleared.mockRestore();
    left.done();
  });

  it('tells at once of a client that left while the request waited, and never of one answered', async () => {
    const left = await exchange(true);
    let told = 0;
    onClientLeft(left.res, () => told++);
    expect(told).toBe(1);
    left.done();
    const answered = await exchange(false);
    onClientLeft(answered.res, () => told++);
    await new Promise((r) => setTimeout(r, 50));
    expect(told).toBe(1);
    answered.done();
  });
});
