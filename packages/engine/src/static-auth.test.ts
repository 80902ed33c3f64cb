import { describe, expect, it } from 'vitest';
import { MapSecretSource, StaticTokenAuthProvider } from './static-auth.js';

describe('StaticTokenAuthProvider', () => {
  it('says whether its token is configured, and what to set when not, never the token', () => {
    expect(new StaticTokenAuthProvider('p', 'secret-token').setup()).toEqual({
      ok: true,
      detail: 'static token configured',
    });
    expect(new StaticTokenAuthProvider('p', undefined, 'set P_TOKEN').setup()).toEqual({
      ok: false,
      detail: 'set P_TOKEN',
    });
  });
});

describe('MapSecretSource', () => {
  it('names the environment variable and the config key that set a missing secret', () => {
    expect(new MapSecretSource({}).describe('CDP_API_KEY')).toBe(
      'set the environment variable CDP_API_KEY, or secrets.CDP_API_KEY in the config file',
    );
  });
});
