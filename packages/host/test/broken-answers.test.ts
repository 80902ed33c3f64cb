import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../src/host.js';
import { inlinePlugin } from './support.js';

// An upstream that takes a write, answers 201, and breaks its answer off: the write is done,
// whatever becomes of the answer.
let upstream: Server;
let received = 0;
let host: Host;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      if (req.url === '/hang') return;
      if (req.url === '/reset') {
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":');
        setTimeout(() => res.socket?.destroy(), 20);
      } else {
        // Declared gzip, and not: it fails to decompress.
        res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.concat([gzipSync('{"id": 1}').subarray(0, 10), Buffer.from('not gzip at all')]));
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const write = (name: string, path: string) => ({
    name,
    description: 'Creates a thing.',
    method: 'POST' as const,
    path,
    auth: { kind: 'none' as const },
  });
  host = await createHost(
    {
      toolSets: { Things: { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } },
      engine: { timeoutMs: 1000 },
    },
    {
      plugins: [
        inlinePlugin('Things', [
          write('CreateReset', '/reset'),
          write('CreateGarbled', '/garbled'),
          write('CreateHanging', '/hang'),
        ]),
      ],
      env: {},
    },
  );
});
afterAll(async () => {
  await host.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('a write whose answer breaks off after the upstream took it', () => {
  for (const tool of ['Things.CreateReset', 'Things.CreateGarbled']) {
    it(`says the request reached the upstream, never that it could not be reached (${tool})`, async () => {
      const before = received;
      const outcome = await host.callTool(tool, {});
      expect(received - before).toBe(1);
      expect(outcome).toMatchObject({ ok: false, error: { code: 'upstream_unavailable' } });
      const { message } = outcome.ok ? { message: '' } : outcome.error;
      expect(message).not.toMatch(/could not reach/i);
      expect(message).toMatch(/may have (received|applied)/);
    });
  }
});

describe('a write the upstream took and never answered', () => {
  it('times out saying the upstream may have received it', async () => {
    const before = received;
    const outcome = await host.callTool('Things.CreateHanging', {});
    expect(received - before).toBe(1);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(outcome.ok ? '' : outcome.error.message).toMatch(/may have received/);
  });
});
