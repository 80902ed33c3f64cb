import { describe, expect, it } from 'vitest';
import { StaticTokenAuthProvider } from './static-auth.js';

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
