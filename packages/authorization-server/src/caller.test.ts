import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { callerAddressBehind, callerBucket } from './caller.js';

/** A request as a connection from `remote` with an `X-Forwarded-For` header, if given. */
const request = (remote: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: remote },
    connection: { remoteAddress: remote },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('callerBucket', () => {
  it('counts an IPv4 address as itself, also when written IPv4-mapped', () => {
    expect(callerBucket('10.0.0.1')).toBe('10.0.0.1');
    expect(callerBucket('::ffff:10.0.0.1')).toBe('10.0.0.1');
  });
  it('counts IPv6 addresses by their /64', () => {
    expect(callerBucket('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(callerBucket('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(callerBucket('2001:db8:1:3::9')).toBe('2001:db8:1:3::/64');
    expect(callerBucket('fe80::1%eth0')).toBe('fe80::/64');
  });
  it('leaves what is no address as it is', () => {
    expect(callerBucket('unknown')).toBe('unknown');
  });
});

describe('callerAddressBehind', () => {
  it('behind trusted proxies, takes the rightmost forwarded address that is not one of them', () => {
    const caller = callerAddressBehind({ trusted: ['loopback', '10.0.0.0/8'] });
    expect(caller(request('127.0.0.1', '203.0.113.9, 198.51.100.7, 10.1.2.3'))).toBe('198.51.100.7');
    expect(caller(request('127.0.0.1'))).toBe('127.0.0.1');
    // A connection from no trusted proxy names itself, whatever header it sends.
    expect(caller(request('192.0.2.5', '198.51.100.7'))).toBe('192.0.2.5');
  });
  it('with none trusted, counts the connection and says once that a proxy is in front', () => {
    const warnings: string[] = [];
    const caller = callerAddressBehind({
      trusted: [],
      setting: 'http.trustedProxies',
      warn: (m) => warnings.push(m),
    });
    expect(caller(request('10.0.0.2', '198.51.100.7'))).toBe('10.0.0.2');
    expect(caller(request('10.0.0.2', '198.51.100.8'))).toBe('10.0.0.2');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('http.trustedProxies is not set');
  });
  it('refuses an entry that is no address or range, naming the setting', () => {
    expect(() => callerAddressBehind({ trusted: ['10.0.0.0/33'] })).toThrow(
      /^trustedProxies: .*10\.0\.0\.0\/33.*expected IP addresses, CIDR ranges/,
    );
  });
});
