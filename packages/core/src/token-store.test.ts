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

  it("writes a refresh's mark only over the token as read, or itself: never over another's mark", () => {
    const read = token('a1', 'r1');
    const mark = token('a1', 'r1', { refreshSentAt: 7 });
    expect(replacesStored(read, mark, read)).toBe(true);
    expect(replacesStored(mark, mark, read)).toBe(true);
    // Another process's mark, written while this one stood still: it is sending r1.
    expect(replacesStored(token('a1', 'r1', { refreshSentAt: 6 }), mark, read)).toBe(false);
    // A vendor known to keep refresh tokens: a mark left by an unanswered refresh, read as such.
    const unanswered = token('a1', 'r1', { refreshSentAt: 5, refreshRotates: false });
    const again = { ...unanswered, refreshSentAt: 7 };
    expect(replacesStored(unanswered, again, unanswered)).toBe(true);
    expect(replacesStored({ ...unanswered, refreshSentAt: 6 }, again, unanswered)).toBe(false);
    // What a refresh brought is written over any mark of the grant.
    expect(replacesStored(token('a1', 'r1', { refreshSentAt: 6 }), next, read)).toBe(true);
  });

  it('takes a mark back only where it is still the one stored, or already taken back', () => {
    const read = token('a1', 'r1');
    const mine = token('a1', 'r1', { refreshSentAt: 7, refreshMark: 'm-1' });
    expect(replacesStored(mine, read, mine)).toBe(true);
    expect(replacesStored(read, read, mine)).toBe(true);
    // Another process's mark: it is sending r1, and without its mark r1 would be sent again.
    expect(replacesStored(token('a1', 'r1', { refreshSentAt: 6 }), read, mine)).toBe(false);
    // Made in the same millisecond: told apart by its id.
    expect(replacesStored({ ...mine, refreshMark: 'm-2' }, read, mine)).toBe(false);
    // Nor marked over one of the same millisecond.
    expect(replacesStored({ ...mine, refreshMark: 'm-2' }, mine, read)).toBe(false);
    expect(replacesStored(token('a9', 'r9'), read, mine)).toBe(false);
  });

  it('without the grant refreshed, writes over any stored token', () => {
    expect(replacesStored(token('a9', 'r9'), next)).toBe(true);
    expect(replacesStored(undefined, next)).toBe(false);
  });
});
