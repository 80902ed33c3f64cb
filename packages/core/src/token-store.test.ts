import { describe, expect, it } from 'vitest';
import { replacesStored, type StoredToken } from './token-store.js';

const token = (
  accessToken: string,
  refreshToken?: string,
  extra: Partial<StoredToken> = {},
): StoredToken => ({
  accessToken,
  ...(refreshToken ? { refreshToken } : {}),
  scopes: [],
  ...extra,
});

describe('replacesStored', () => {
  const refreshed = token('a1', 'r1', { refreshSentAt: 5 });
  const next = token('a2', 'r2');

  it('writes over the grant refreshed, whatever its bookkeeping', () => {
    expect(replacesStored(refreshed, next, token('a1', 'r1'))).toBe(true);
  });

  it('writes again over itself: a write repeated until acknowledged may have landed', () => {
    expect(replacesStored(next, next, refreshed)).toBe(true);
  });

  it('writes nowhere once disconnected, nor over a grant signed in since', () => {
    expect(replacesStored(undefined, next, refreshed)).toBe(false);
    expect(replacesStored(token('a9', 'r9'), next, refreshed)).toBe(false);
    expect(replacesStored(token('a1', 'r9'), next, refreshed)).toBe(false);
  });

  it('without the grant refreshed, writes over any stored token', () => {
    expect(replacesStored(token('a9', 'r9'), next)).toBe(true);
    expect(replacesStored(undefined, next)).toBe(false);
  });
});
