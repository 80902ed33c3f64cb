import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { inlinePlugin } from '../../test/support.js';
import { createHost } from '../host.js';
import { serveStdio } from './serve-stdio.js';

const getItem = {
  name: 'GetItem',
  description: 'Get one item.',
  method: 'GET' as const,
  path: '/items/{itemId}',
  auth: { kind: 'none' as const },
  params: [
    {
      name: 'item_id',
      in: 'path' as const,
      apiName: 'itemId',
      required: true,
      schema: { type: 'string' },
      description: 'Item id.',
    },
  ],
};

describe('serveStdio', () => {
  it('writes the first tools/list answer before loading what calls need', async () => {
    const host = await createHost({}, { plugins: [inlinePlugin('ItemApi', [getItem])] });
    const written: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        done();
      },
      writev(chunks, done) {
        for (const c of chunks) written.push(String(c.chunk));
        done();
      },
    });
    // What had reached stdout when the host was asked to warm up.
    const warmed = new Promise<string>((resolve) => {
      host.warm = async () => resolve(written.join(''));
    });
    const stdin = new PassThrough();
    const served = await serveStdio(host, {}, stdin, stdout);
    const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const before = (await warmed).split('\n').filter(Boolean);
    const listed = before.map((line) => JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } });
    expect(listed.map((m) => m.id)).toEqual([1, 2]);
    expect(listed[1]?.result?.tools).toHaveLength(1);
    await served.close();
    await host.close();
  });
});
