import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressAllowed, guardedGet } from './guarded-fetch.js';

describe('guarded fetches', () => {
  it('tells public addresses from private, link-local, loopback and mapped ones', () => {
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '127.0.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd12::1',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '2002:a00:1::1',
      '::a00:1',
      '100.64.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::a00:1',
      'fec0::1',
    ])
      expect(addressAllowed(address, false), address).toBe(false);
    for (const address of ['93.184.216.34', '2606:4700::1111', '8.8.8.8'])
      expect(addressAllowed(address, false), address).toBe(true);
    expect(addressAllowed('127.0.0.1', true)).toBe(true);
    expect(addressAllowed('10.0.0.1', true)).toBe(false);
  });

  it('checks the addresses a name resolves to, not only literals', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      // A name, not a literal: the resolver's answer (loopback) is what is refused.
      await expect(
        guardedGet(new URL(`https://localhost:${port}/client.json`), {
          allowLoopback: false,
          timeoutMs: 2000,
          maxBytes: 1000,
        }),
      ).rejects.toThrow(/not public/);
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });
});
