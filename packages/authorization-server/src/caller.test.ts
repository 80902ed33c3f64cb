import { describe, expect, it } from 'vitest';
import { callerBucket } from './caller.js';

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
