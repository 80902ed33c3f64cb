import { describe, expect, it } from 'vitest';
import { OAuthCallbackError } from './browser-sign-in.js';
import { TokenStoreError } from './credentials-error.js';

describe("this package's errors", () => {
  it("carry the host's marker and their code, and are recognised by them, also from another copy", () => {
    const store = new TokenStoreError('x');
    expect(store.code).toBe('token_store_invalid');
    expect((store as unknown as Record<symbol, unknown>)[Symbol.for('toolhost.host.error')]).toBe(true);
    expect(TokenStoreError.isInstance(store)).toBe(true);
    expect(OAuthCallbackError.isInstance(store)).toBe(false);
    expect(new OAuthCallbackError('y').status).toBe(400);
    // What another copy (or the shared store) throws: same marker and code, another class.
    const foreign = Object.assign(new Error('elsewhere'), {
      [Symbol.for('toolhost.host.error')]: true,
      code: 'token_store_invalid',
    });
    expect(TokenStoreError.isInstance(foreign)).toBe(true);
    expect(
      TokenStoreError.isInstance(Object.assign(new Error('unmarked'), { code: 'token_store_invalid' })),
    ).toBe(false);
  });
});
