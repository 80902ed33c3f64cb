import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLarge, readBody } from './http-body.js';

const LIMIT = 1024;
const server = createServer(async (req, res) => {
  // As the endpoints do: the body is read after other work has been awaited.
  await Promise.resolve();
  try {
    const body = await readBody(req, LIMIT);
    res.end(JSON.stringify({ complete: true, body }));
  } catch (e) {
    res.end(JSON.stringify({ tooLarge: e instanceof BodyTooLarge }));
  }
});
let port = 0;
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** POSTs `parts`, each written `gapMs` after the one before, chunked. */
async function post(parts: (string | Buffer)[], gapMs = 0): Promise<Record<string, unknown>> {
  const req = request({ port, method: 'POST', host: '127.0.0.1', path: '/' });
  const answer = once(req, 'response');
  for (const [i, part] of parts.entries()) {
    if (i > 0 && gapMs) await new Promise((r) => setTimeout(r, gapMs));
    req.write(part);
  }
  req.end();
  const [res] = (await answer) as [import('node:http').IncomingMessage];
  let text = '';
  for await (const chunk of res) text += chunk;
  return JSON.parse(text);
}

describe('readBody', () => {
  it('reads a body that came in one packet', async () => {
    expect(await post(['{"jsonrpc":"2.0","id":1,"method":"ping"}'])).toEqual({
      complete: true,
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
  });

  it('reads a body that trickles in, a multi-byte character split between its parts', async () => {
    const text = 'héllo wörld';
    const bytes = Buffer.from(text);
    const parts = [bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)];
    expect(await post(parts, 20)).toEqual({ complete: true, body: text });
  });

  it('refuses a body over the limit, whether it came at once or in parts', async () => {
    expect(await post(['x'.repeat(LIMIT + 1)])).toEqual({ tooLarge: true });
    expect(await post(['x'.repeat(600), 'y'.repeat(600)], 20)).toEqual({ tooLarge: true });
  });
});
