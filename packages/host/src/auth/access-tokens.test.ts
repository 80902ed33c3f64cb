import { describe, expect, it } from 'vitest';
import { AccessTokens } from './access-tokens.js';

const T = (c: string) => c.repeat(20);

describe('AccessTokens user names', () => {
  it('takes __proto__, constructor and toString from TOOLHOST_ACCESS_TOKENS as ordinary users', () => {
    const tokens = AccessTokens.fromConfig(
      {},
      { TOOLHOST_ACCESS_TOKENS: `__proto__:${T('a')},constructor:${T('b')},toString:${T('c')}` },
    );
    expect(tokens.enabled).toBe(true);
    expect(tokens.userForToken(T('a'))).toBe('__proto__');
    expect(tokens.userForToken(T('b'))).toBe('constructor');
    expect(tokens.userForToken(T('c'))).toBe('toString');
  });

  it('does not run without access tokens when the only user is named __proto__', () => {
    const tokens = AccessTokens.fromConfig({}, { TOOLHOST_ACCESS_TOKENS: `__proto__:${T('a')}` });
    expect(tokens.enabled).toBe(true);
    expect(tokens.userFor(`Bearer ${T('a')}`)).toBe('__proto__');
  });

  it("lets the environment's __proto__ token replace the file's, and refuses it named twice", () => {
    const file = JSON.parse(`{"http":{"accessTokens":{"__proto__":"${T('f')}","bob":"${T('g')}"}}}`);
    const tokens = AccessTokens.fromConfig(file, { TOOLHOST_ACCESS_TOKENS: `__proto__:${T('e')}` });
    expect(tokens.userForToken(T('e'))).toBe('__proto__');
    expect(tokens.userForToken(T('f'))).toBeUndefined();
    expect(tokens.userForToken(T('g'))).toBe('bob');
    expect(() =>
      AccessTokens.fromConfig({}, { TOOLHOST_ACCESS_TOKENS: `__proto__:${T('a')},__proto__:${T('b')}` }),
    ).toThrow(/names user '__proto__' twice/);
  });
});
