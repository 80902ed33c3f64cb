import { describe, expect, it } from 'vitest';
import { withinDateRange } from './token-stores.js';

describe('withinDateRange', () => {
  it('takes exactly the instants a Date can hold', () => {
    for (const ms of [0, Date.now(), 8.64e15, -8.64e15]) {
      expect(withinDateRange(ms)).toBe(true);
      expect(new Date(ms).getTime()).toBe(ms);
    }
    for (const ms of [8.64e15 + 1, -8.64e15 - 1, 1e306, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(withinDateRange(ms)).toBe(false);
      expect(new Date(ms).getTime()).toBeNaN();
    }
    expect(withinDateRange(undefined)).toBe(false);
  });
});
