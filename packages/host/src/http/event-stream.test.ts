import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { EventStream } from './event-stream.js';

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
