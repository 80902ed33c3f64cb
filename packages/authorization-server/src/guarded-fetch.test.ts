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

  // A client behind NAT64 (an IPv6-only network) publishes its document at 64:ff9b::<its IPv4>:
  // refused wholesale, it could not be fetched at all. The translator connects to the IPv4
  // address inside, so that address is what is judged, as it is for the mapped and compatible forms.
  it('judges the IPv4 address inside NAT64, IPv4-mapped and IPv4-compatible addresses by the IPv4 rules', () => {
    for (const address of [
      '64:ff9b::8.8.8.8',
      '64:ff9b::5db8:d822', // 93.184.216.34
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '::8.8.8.8',
      '::808:808',
    ])
      expect(addressAllowed(address, false), address).toBe(true);
    for (const address of [
      '64:ff9b::10.0.0.1',
      '64:ff9b::c0a8:101', // 192.168.1.1
      '64:ff9b::a9fe:a9fe', // 169.254.169.254, the cloud metadata service
      '64:ff9b::6440:1', // 100.64.0.1
      '64:ff9b::e000:1', // multicast
      '64:ff9b::',
      '::ffff:192.168.1.1',
      '::ffff:a9fe:a9fe',
      '::10.0.0.1',
      '::a9fe:a9fe',
      '::',
      '::1',
    ])
      expect(addressAllowed(address, false), address).toBe(false);
    // Loopback where allowed is this machine's own: not the translator's, nor a compatible form's.
    expect(addressAllowed('::ffff:127.0.0.1', true)).toBe(true);
    expect(addressAllowed('::1', true)).toBe(true);
    for (const address of ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '::127.0.0.1', '::7f00:1'])
      expect(addressAllowed(address, true), address).toBe(false);
    // Only the well-known /96 carries an address so: the rest of 64:ff9b::/32 is as before.
    expect(addressAllowed('64:ff9b:1::808:808', false)).toBe(false);
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
