import { describe, expect, it } from 'vitest';
import { proxiesFromEnv } from './upstream-dispatcher.js';

describe('proxiesFromEnv', () => {
  it('finds no proxy in an environment without proxy variables', () => {
    expect(proxiesFromEnv({ PATH: '/bin' })).toEqual({ http: undefined, https: undefined, noProxy: '' });
  });

  it('reads each scheme from its own variable, lower case first', () => {
    expect(
      proxiesFromEnv({
        http_proxy: 'http://lower:1',
        HTTP_PROXY: 'http://upper:1',
        HTTPS_PROXY: 'http://secure:2',
        no_proxy: 'internal.example',
      }),
    ).toEqual({ http: 'http://lower:1', https: 'http://secure:2', noProxy: 'internal.example' });
  });

  it('falls back to ALL_PROXY, never from https to the http proxy', () => {
    expect(proxiesFromEnv({ HTTP_PROXY: 'http://plain:1' })).toMatchObject({
      http: 'http://plain:1',
      https: undefined,
    });
    expect(proxiesFromEnv({ ALL_PROXY: 'http://every:3' })).toMatchObject({
      http: 'http://every:3',
      https: 'http://every:3',
    });
  });

  it('reads a proxy named without a scheme as an HTTP proxy, and ignores empty values', () => {
    expect(proxiesFromEnv({ https_proxy: '', HTTPS_PROXY: 'proxy.local:3128' }).https).toBe(
      'http://proxy.local:3128',
    );
  });
});
